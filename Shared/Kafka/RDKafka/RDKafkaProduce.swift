import CRdKafka

/// `rd_kafka_produceva`, the array form of `rd_kafka_producev` (Swift cannot call the `RD_KAFKA_V_…` variadic macros).
enum RDKafkaProduce {
    /// Enqueues `message` tagged with the per-message `opaque` its delivery report will carry.
    /// Topic, key, value and headers are copied (`RD_KAFKA_MSG_F_COPY`), so nothing must outlive the call.
    /// - Returns: librdkafka's result, such as `RD_KAFKA_RESP_ERR__QUEUE_FULL` when the local queue is full.
    static func enqueue(_ message: KafkaOutgoingMessage, opaque: UInt, on handle: OpaquePointer) -> rd_kafka_resp_err_t {
        let headers = makeHeaders(message.headers)
        var key = Array(message.key.utf8)
        let code = message.topic.withCString { topic in
            key.withUnsafeMutableBytes { key in
                message.value.withUnsafeBytes { value in
                    var arguments = [rd_kafka_vu_t](repeating: rd_kafka_vu_t(), count: headers == nil ? 5 : 6)
                    arguments[0].vtype = RD_KAFKA_VTYPE_TOPIC
                    arguments[0].u.cstr = topic
                    arguments[1].vtype = RD_KAFKA_VTYPE_KEY
                    arguments[1].u.mem.ptr = key.baseAddress
                    arguments[1].u.mem.size = key.count
                    arguments[2].vtype = RD_KAFKA_VTYPE_VALUE
                    arguments[2].u.mem.ptr = UnsafeMutableRawPointer(mutating: value.baseAddress)
                    arguments[2].u.mem.size = value.count
                    arguments[3].vtype = RD_KAFKA_VTYPE_OPAQUE
                    arguments[3].u.ptr = UnsafeMutableRawPointer(bitPattern: opaque)
                    arguments[4].vtype = RD_KAFKA_VTYPE_MSGFLAGS
                    arguments[4].u.i = RD_KAFKA_MSG_F_COPY
                    if let headers {
                        arguments[5].vtype = RD_KAFKA_VTYPE_HEADERS
                        arguments[5].u.headers = headers
                    }
                    guard let error = rd_kafka_produceva(handle, arguments, arguments.count) else {
                        return RD_KAFKA_RESP_ERR_NO_ERROR
                    }
                    defer { rd_kafka_error_destroy(error) }
                    return rd_kafka_error_code(error)
                }
            }
        }
        // librdkafka owns the header list only once the message is enqueued.
        if code != RD_KAFKA_RESP_ERR_NO_ERROR, let headers { rd_kafka_headers_destroy(headers) }
        return code
    }

    /// A librdkafka header list holding copies of `headers`, or `nil` when there are none.
    private static func makeHeaders(_ headers: [KafkaHeader]) -> OpaquePointer? {
        guard !headers.isEmpty else { return nil }
        let list: OpaquePointer = rd_kafka_headers_new(headers.count)
        for header in headers {
            header.value.withUnsafeBytes { value in
                _ = rd_kafka_header_add(list, header.key, -1, value.baseAddress, value.count)
            }
        }
        return list
    }
}
