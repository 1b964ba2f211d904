/// Delivers other services' events to one consumer (a Kafka consumer group member, or an embedded feed poller).
public protocol EventSource: Sendable {
    /// Returns the next events (at most `maxEvents`), waiting up to `timeout` for some; may return none.
    ///
    /// - Parameter positions: the consumer's stored source positions (by source service), for transports that
    ///   resume from them (the embedded feed); Kafka resumes from committed offsets instead.
    func next(maxEvents: Int, timeout: Duration, positions: [String: Int64]) async throws -> [IncomingEvent]
    /// Confirms events whose local transaction committed (Kafka: store their offsets).
    func acknowledge(_ events: [IncomingEvent]) async throws
    /// Releases the transport (Kafka: commit stored offsets and leave the group).
    func close() async
}

/// An event received by a consumer, with what the transport needs to acknowledge it.
public struct IncomingEvent: Sendable {
    /// The event.
    public var event: PublishedEvent
    /// Transport bookkeeping (e.g. Kafka partition and offset).
    public var receipt: Receipt

    /// Creates an incoming event.
    public init(event: PublishedEvent, receipt: Receipt) {
        self.event = event
        self.receipt = receipt
    }

    /// Where an event came from in its transport.
    public enum Receipt: Sendable, Hashable {
        /// A Kafka message.
        case kafka(topic: String, partition: Int32, offset: Int64)
        /// An embedded feed item (the producer's log position).
        case feed(position: Int64)
    }
}
