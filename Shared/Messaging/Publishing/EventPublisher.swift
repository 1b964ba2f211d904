/// Sends a service's own events to its topic.
public protocol EventPublisher: Sendable {
    /// Publishes `events` (in position order) and returns only when the transport has durably accepted every one —
    /// for Kafka, when every delivery report arrived.
    func publish(_ events: [PublishedEvent], to topic: String) async throws
}
