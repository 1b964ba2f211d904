import CRdKafka
import Logging

/// What librdkafka's C callbacks reach through the configuration opaque (`rd_kafka_opaque`): the client's logger and,
/// for a producer, the deliveries awaiting their reports. Retained by ``RDKafkaHandle`` until after `rd_kafka_destroy`.
final class RDKafkaClientContext: Sendable {
    let logger: Logger
    let deliveries: DeliveryTracker?

    init(logger: Logger, deliveries: DeliveryTracker? = nil) {
        self.logger = logger
        self.deliveries = deliveries
    }

    /// The context behind a callback's opaque pointer (the configuration opaque set by ``RDKafkaHandle``).
    static func from(opaque: UnsafeMutableRawPointer?) -> RDKafkaClientContext? {
        guard let opaque else { return nil }
        return Unmanaged<RDKafkaClientContext>.fromOpaque(opaque).takeUnretainedValue()
    }

    /// Routes one librdkafka log line (syslog `level`, `facility` such as `FAIL` or `CGRPOP`) to swift-log.
    func log(level: Int32, facility: String, message: String, client: String) {
        logger.log(
            level: Self.logLevel(syslog: level), "\(message)",
            metadata: ["kafka.facility": "\(facility)", "kafka.client": "\(client)"])
    }

    /// Routes a librdkafka error event (`error_cb`) to swift-log. Fatal errors (the client must be recreated) are
    /// critical; "all brokers down" is a warning; the rest are notices, since librdkafka usually logs them already.
    func error(code: rd_kafka_resp_err_t, reason: String, client: String) {
        let level: Logger.Level = switch code {
        case RD_KAFKA_RESP_ERR__FATAL: .critical
        case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN: .warning
        default: .notice
        }
        logger.log(
            level: level, "librdkafka error: \(reason)",
            metadata: ["kafka.error": "\(String(cString: rd_kafka_err2name(code)))", "kafka.client": "\(client)"])
    }

    /// swift-log's level for a syslog level (0 emergency … 7 debug).
    static func logLevel(syslog level: Int32) -> Logger.Level {
        switch level {
        case ...2: .critical
        case 3: .error
        case 4: .warning
        case 5: .notice
        case 6: .info
        default: .debug
        }
    }

    /// librdkafka's `log_level` (syslog scale) matching a logger's threshold, so filtered lines are never formatted.
    static func syslogLevel(for level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
