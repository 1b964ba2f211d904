import CRdKafka
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a consumed `rd_kafka_message_t` into a ``KafkaIncomingMessage`` (copying every byte, so the C message can
/// be destroyed right after).
enum RDKafkaMessage {
    static func incoming(_ message: UnsafePointer<rd_kafka_message_t>) -> KafkaIncomingMessage {
        let record = message.pointee
        return KafkaIncomingMessage(
            topic: topicName(message),
            partition: record.partition,
            offset: record.offset,
            key: record.key.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: record.key_len), as: UTF8.self) },
            value: record.payload.map { Data(bytes: $0, count: record.len) } ?? Data(),
            headers: headers(of: message),
            timestamp: timestamp(of: message))
    }

    /// The message's topic name, or `""` when librdkafka attached no topic (some error events).
    static func topicName(_ message: UnsafePointer<rd_kafka_message_t>) -> String {
        message.pointee.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
    }

    private static func headers(of message: UnsafePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var list: OpaquePointer?
        guard rd_kafka_message_headers(message, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        var headers: [KafkaHeader] = []
        var index = 0
        while true {
            var name: UnsafePointer<CChar>?
            var value: UnsafeRawPointer?
            var size = 0
            guard rd_kafka_header_get_all(list, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR else { break }
            let bytes = value.map { Data(bytes: $0, count: size) } ?? Data()
            headers.append(KafkaHeader(key: name.map { String(cString: $0) } ?? "", value: bytes))
            index += 1
        }
        return headers
    }

    private static func timestamp(of message: UnsafePointer<rd_kafka_message_t>) -> Date? {
        var type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let milliseconds = rd_kafka_message_timestamp(message, &type)
        guard type != RD_KAFKA_TIMESTAMP_NOT_AVAILABLE, milliseconds >= 0 else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
