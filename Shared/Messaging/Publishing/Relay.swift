import EventSourcing
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Publishes a service's log, in position order, to its topic; the published position is stored only after the
/// transport confirmed delivery, so a restart resumes there (possibly re-sending a batch, which consumers dedupe).
public final class Relay<Store: EventStore, Publisher: EventPublisher, Checkpoints: CheckpointStore>: Service, Sendable {
    let store: Store
    let publisher: Publisher
    let checkpoints: Checkpoints
    let source: String
    let topic: String
    let batchSize: Int
    let retryDelay: Duration
    let include: @Sendable (EventEnvelope) -> Bool
    let logger: Logger
    private let state = Mutex(RelayStatus(published: 0, head: 0, lastError: nil))

    /// Creates a relay for the service `source` publishing to `topic`.
    ///
    /// - Parameter include: which events of the log are published (default: all). A service whose log also holds
    ///   internal events passes its published language here; skipped events still advance the published position.
    public init(store: Store, publisher: Publisher, checkpoints: Checkpoints, source: String, topic: String,
                batchSize: Int = 500, retryDelay: Duration = .milliseconds(500),
                include: @escaping @Sendable (EventEnvelope) -> Bool = { _ in true },
                logger: Logger = Logger(label: "waypoint.relay")) {
        self.store = store
        self.publisher = publisher
        self.checkpoints = checkpoints
        self.source = source
        self.topic = topic
        self.batchSize = batchSize
        self.retryDelay = retryDelay
        self.include = include
        self.logger = logger
    }

    /// The checkpoint name under which the published position is stored.
    public var checkpointName: String { "relay:\(topic)" }

    /// Published position, head seen and last error, for readiness and metrics.
    public var status: RelayStatus { state.withLock { $0 } }

    /// Runs until shutdown: catch-up then live. Transport failures are retried; nothing is skipped.
    public func run() async throws {
        try? await cancelWhenGracefulShutdown { try await self.follow() }
    }

    private func follow() async throws {
        var published = try await checkpoints.position(of: checkpointName)
        state.withLock { $0.published = published }
        for try await batch in store.subscribe(after: published, batchSize: batchSize) {
            try await publishUntilDelivered(batch)
            published = batch.last!.position
            try await checkpoints.save(published, for: checkpointName)
            let head = (try? await store.headPosition()) ?? published
            state.withLock { $0 = RelayStatus(published: published, head: head, lastError: nil) }
            Gauge(label: "waypoint_relay_backlog_events", dimensions: [("topic", topic)]).record(Double(head - published))
        }
    }

    private func publishUntilDelivered(_ batch: [EventEnvelope]) async throws {
        let events = batch.filter(include).map { PublishedEvent($0, source: source) }
        guard !events.isEmpty else { return }
        while true {
            do {
                try await publisher.publish(events, to: topic)
                return
            } catch {
                try Task.checkCancellation()
                state.withLock { $0.lastError = "\(error)" }
                logger.warning("relay publish failed; retrying", metadata: ["topic": "\(topic)", "error": "\(error)"])
                try await Task.sleep(for: retryDelay)
            }
        }
    }
}

/// How far a relay got.
public struct RelayStatus: Sendable, Hashable {
    /// Last position confirmed delivered.
    public var published: Int64
    /// Head of the log when last checked.
    public var head: Int64
    /// The last transport error, cleared by the next successful delivery.
    public var lastError: String?
}
