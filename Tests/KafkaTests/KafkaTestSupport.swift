import Foundation
import Kafka
import Logging
import Synchronization
import Testing

/// Shared fixtures: a quiet logger, fast client settings for the mock cluster, and condition waits with deadlines.
enum KafkaTestSupport {
    /// A logger that keeps the test output quiet: warnings and worse only.
    static let logger: Logger = {
        var logger = Logger(label: "waypoint.kafka.tests")
        logger.logLevel = .warning
        return logger
    }()

    /// Client settings for a mock cluster: quick reconnects and short group timeouts, so tests settle in seconds.
    static func configuration(_ cluster: KafkaMockCluster, extra: [String: String] = [:]) -> KafkaConfiguration {
        KafkaConfiguration(
            bootstrapServers: cluster.bootstrapServers, clientID: "kafka-tests",
            properties: [
                "reconnect.backoff.ms": "50", "reconnect.backoff.max.ms": "500",
                "session.timeout.ms": "3000", "heartbeat.interval.ms": "500",
                "topic.metadata.refresh.interval.ms": "1000",
            ].merging(extra) { $1 })
    }

    /// Producer settings: the consumer-only keys above would only trigger librdkafka warnings.
    static func producerConfiguration(_ cluster: KafkaMockCluster, extra: [String: String] = [:]) -> KafkaConfiguration {
        var configuration = configuration(cluster, extra: extra)
        configuration.properties["session.timeout.ms"] = nil
        configuration.properties["heartbeat.interval.ms"] = nil
        return configuration
    }

    /// `count` messages spread round-robin over `keys` keys, each carrying its key's sequence number in its value
    /// and an `event-id` header unique within the batch.
    static func messages(topic: String, count: Int, keys: Int, tag: String = "m") -> [KafkaOutgoingMessage] {
        (0..<count).map { index in
            let key = "stream-\(index % keys)"
            let sequence = index / keys
            return KafkaOutgoingMessage(
                topic: topic, key: key, value: Data("\(key):\(sequence)".utf8),
                headers: [
                    KafkaHeader(key: "event-id", value: "\(tag)-\(index)"),
                    KafkaHeader(key: "event-type", value: "TestEvent"),
                    KafkaHeader(key: "binary", value: Data([0, 255, UInt8(index % 256)])),
                ])
        }
    }

    /// The `event-id` header of a received message.
    static func eventID(_ message: KafkaIncomingMessage) -> String? {
        message.header("event-id").map { String(decoding: $0, as: UTF8.self) }
    }

    /// Polls `consumer` until `done` holds for everything received so far, or fails after `timeout`.
    static func receive(
        from consumer: KafkaConsumer, timeout: Duration = .seconds(30),
        until done: ([KafkaIncomingMessage]) -> Bool
    ) async throws -> [KafkaIncomingMessage] {
        let deadline = ContinuousClock.now + timeout
        var received: [KafkaIncomingMessage] = []
        while !done(received) {
            guard ContinuousClock.now < deadline else {
                Issue.record("gave up after \(timeout) with \(received.count) messages received")
                return received
            }
            received += try await consumer.poll(maxMessages: 500, timeout: .milliseconds(250))
        }
        return received
    }

    /// Runs `operation`, failing the test if it has not finished after `timeout`.
    static func within<T: Sendable>(
        _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask { try await Task.sleep(for: timeout); return nil }
            defer { group.cancelAll() }
            guard let value = try await group.next() ?? nil else { throw TimeoutError(timeout: timeout) }
            return value
        }
    }

    /// Thrown by ``within(_:_:)``.
    struct TimeoutError: Error {
        let timeout: Duration
    }
}

/// Records every log event it receives, so tests can check that librdkafka's logs reach swift-log.
struct RecordingLogHandler: LogHandler {
    /// The events logged so far through every copy of this handler.
    final class Records: Sendable {
        private let events = Mutex<[LogEvent]>([])
        func append(_ event: LogEvent) { events.withLock { $0.append(event) } }
        var all: [LogEvent] { events.withLock { $0 } }
    }

    let records: Records
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    func log(event: LogEvent) {
        records.append(event)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}
