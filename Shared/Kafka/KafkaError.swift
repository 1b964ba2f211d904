import CRdKafka

/// An error reported by librdkafka (or by this wrapper in librdkafka's terms), with librdkafka's code and text.
public struct KafkaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// librdkafka's `rd_kafka_resp_err_t`: negative for client-side errors (`RD_KAFKA_RESP_ERR__…`),
    /// positive for error codes returned by a broker, `0` never.
    public let code: Int32

    /// librdkafka's symbolic name for ``code``, such as `_MSG_TIMED_OUT` or `UNKNOWN_TOPIC_OR_PART`.
    public let name: String

    /// librdkafka's description of the error, or the more specific reason it reported.
    public let reason: String

    /// What the client was doing, such as `"deliver to waypoint.tours"` or `"commit offsets"`.
    public let operation: String

    init(code: rd_kafka_resp_err_t, operation: String, reason: String? = nil) {
        self.code = code.rawValue
        self.name = String(cString: rd_kafka_err2name(code))
        self.reason = reason ?? String(cString: rd_kafka_err2str(code))
        self.operation = operation
    }

    /// A human-readable summary: operation, name, code and reason.
    public var description: String {
        "\(operation) failed: \(name) (\(code)): \(reason)"
    }

    /// `true` when the client has been shut down or closed and can no longer be used.
    public var isClientClosed: Bool {
        code == RD_KAFKA_RESP_ERR__DESTROY.rawValue
    }

    /// The error every call on a shut-down client throws.
    static func clientClosed(_ operation: String) -> KafkaError {
        KafkaError(code: RD_KAFKA_RESP_ERR__DESTROY, operation: operation, reason: "the client has been shut down")
    }
}
