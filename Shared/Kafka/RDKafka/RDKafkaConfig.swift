import CRdKafka

/// Builds librdkafka `rd_kafka_conf_t` objects and installs the callbacks every Waypoint client shares.
enum RDKafkaConfig {
    /// A new configuration holding `properties`; the caller owns it until `rd_kafka_new` succeeds.
    static func make(_ properties: [String: String]) throws -> OpaquePointer {
        let configuration: OpaquePointer = rd_kafka_conf_new()
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            var reason = [CChar](repeating: 0, count: 512)
            guard rd_kafka_conf_set(configuration, key, value, &reason, reason.count) == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(configuration)
                throw KafkaError(
                    code: RD_KAFKA_RESP_ERR__INVALID_ARG, operation: "configure \(key)", reason: String(cChars: reason))
            }
        }
        return configuration
    }

    /// Sends librdkafka's log lines and error events to the ``RDKafkaClientContext`` behind the configuration opaque.
    /// Logs arrive on librdkafka's own threads; errors on whichever thread polls the handle.
    static func routeLogsAndErrors(_ configuration: OpaquePointer) {
        rd_kafka_conf_set_log_cb(configuration) { handle, level, facility, message in
            guard let handle, let context = RDKafkaClientContext.from(opaque: rd_kafka_opaque(handle)) else { return }
            context.log(
                level: level, facility: facility.map { String(cString: $0) } ?? "",
                message: message.map { String(cString: $0) } ?? "", client: String(cString: rd_kafka_name(handle)))
        }
        rd_kafka_conf_set_error_cb(configuration) { handle, code, reason, opaque in
            guard let handle, let context = RDKafkaClientContext.from(opaque: opaque) else { return }
            context.error(
                code: rd_kafka_resp_err_t(rawValue: code), reason: reason.map { String(cString: $0) } ?? "",
                client: String(cString: rd_kafka_name(handle)))
        }
    }

    /// The value librdkafka actually uses for `key` on a live handle (after defaults and implied settings),
    /// or `nil` for an unknown property.
    static func effectiveValue(of key: String, handle: OpaquePointer) -> String? {
        guard let configuration = rd_kafka_conf(handle) else { return nil }
        var size = 0
        guard rd_kafka_conf_get(configuration, key, nil, &size) == RD_KAFKA_CONF_OK else { return nil }
        var value = [CChar](repeating: 0, count: max(size, 1))
        guard rd_kafka_conf_get(configuration, key, &value, &size) == RD_KAFKA_CONF_OK else { return nil }
        return String(cChars: value)
    }
}
