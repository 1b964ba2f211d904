import Kafka
import Logging
import Metrics
import Synchronization

/// Consumes other services' topics as a member of the service's consumer group. Offsets are stored only in
/// ``acknowledge(_:)``, which the runner calls after the local transaction committed; a message between commit and
/// offset store is redelivered after a crash and deduped by the consumer target.
public final class KafkaEventSource: EventSource {
    let consumer: KafkaConsumer
    let logger: Logger
    private let pending = Mutex<[IncomingEvent.Receipt: KafkaIncomingMessage]>([:])

    /// Creates a source over a consumer already subscribed to the topics.
    public init(consumer: KafkaConsumer, logger: Logger = Logger(label: "waypoint.kafka-source")) {
        self.consumer = consumer
        self.logger = logger
    }

    public func next(maxEvents: Int, timeout: Duration, positions: [String: Int64]) async throws -> [IncomingEvent] {
        let messages = try await consumer.poll(maxMessages: maxEvents, timeout: timeout)
        var events: [IncomingEvent] = []
        for message in messages {
            let receipt = IncomingEvent.Receipt.kafka(topic: message.topic, partition: message.partition, offset: message.offset)
            pending.withLock { $0[receipt] = message }
            if let event = PublishedEvent(kafkaMessage: message) {
                events.append(IncomingEvent(event: event, receipt: receipt))
            } else {
                // Not a Waypoint event: nothing to apply, but its offset must still advance.
                logger.warning("ignoring a message without Waypoint headers", metadata: [
                    "topic": "\(message.topic)", "partition": "\(message.partition)", "offset": "\(message.offset)"])
                try consumer.storeOffset(message)
                pending.withLock { _ = $0.removeValue(forKey: receipt) }
            }
        }
        return events
    }

    public func acknowledge(_ events: [IncomingEvent]) async throws {
        var lastPerPartition: [KafkaTopicPartition: KafkaIncomingMessage] = [:]
        for event in events {
            guard let message = pending.withLock({ $0.removeValue(forKey: event.receipt) }) else { continue }
            try consumer.storeOffset(message)
            lastPerPartition[KafkaTopicPartition(topic: message.topic, partition: message.partition)] = message
        }
        for (partition, message) in lastPerPartition {
            guard let lag = consumer.lag(after: message) else { continue }
            Gauge(label: "waypoint_consumer_lag_events", dimensions: [
                ("source", partition.topic), ("partition", String(partition.partition)), ("transport", "kafka"),
                ("group", consumer.groupID),
            ]).record(Double(lag))
        }
    }

    public func close() async {
        await consumer.close()
    }
}
