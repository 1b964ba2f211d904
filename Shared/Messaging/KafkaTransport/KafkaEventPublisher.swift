import Kafka

/// Publishes events through the idempotent Kafka producer; returns after every delivery report.
public struct KafkaEventPublisher: EventPublisher {
    let producer: KafkaProducer

    /// Creates a publisher over a producer (which the service runs and shuts down).
    public init(producer: KafkaProducer) {
        self.producer = producer
    }

    public func publish(_ events: [PublishedEvent], to topic: String) async throws {
        try await producer.send(events.map { $0.kafkaMessage(topic: topic) })
    }
}
