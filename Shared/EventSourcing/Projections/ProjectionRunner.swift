import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Keeps one projection up to date with an event store: catch-up from its checkpoint, then live.
///
/// A batch that fails to apply stops the projection loudly: the error is logged, ``status`` becomes `failed` (readiness
/// reports it) and nothing after it is applied; the event is never skipped. `run()` then waits for shutdown instead of
/// throwing, so one broken read model does not take the whole service down.
public final class ProjectionRunner<Store: EventStore, Target: ProjectionTarget>: Service, Sendable {
    /// The store events come from.
    public let store: Store
    /// Where the read model is written.
    public let target: Target
    let batchSize: Int
    let pollInterval: Duration
    let logger: Logger
    private let lock = AsyncLock()
    private let state = Mutex(ProjectionStatus.starting)

    /// Creates a runner.
    ///
    /// - Parameters:
    ///   - batchSize: most events applied per transaction.
    ///   - pollInterval: longest wait before re-reading the log for appends by other processes.
    public init(store: Store, target: Target, batchSize: Int = 500, pollInterval: Duration = .milliseconds(100),
                logger: Logger = Logger(label: "waypoint.projection")) {
        self.store = store
        self.target = target
        self.batchSize = batchSize
        self.pollInterval = pollInterval
        var logger = logger
        logger[metadataKey: "projection"] = "\(target.name)"
        self.logger = logger
    }

    /// The projection's current state.
    public var status: ProjectionStatus { state.withLock { $0 } }

    /// Runs until cancelled or shut down gracefully.
    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await self.follow() }
        } catch is CancellationError {
            return
        } catch let failure as ProjectionFailure {
            state.withLock { $0 = .failed(position: $0.position, eventPosition: failure.eventPosition, reason: failure.reason) }
            logger.error("projection stopped", metadata: [
                "event.position": "\(failure.eventPosition)", "event.type": "\(failure.eventType)", "error": "\(failure.reason)",
            ])
            try? await gracefulShutdown()
        }
    }

    /// Applies everything currently in the log, then returns (for tools, tests and rebuild commands).
    public func catchUp() async throws {
        var position = try await target.prepare()
        while true {
            let batch = try await store.readAll(after: position, limit: batchSize)
            guard !batch.isEmpty else { break }
            position = try await applyLive(batch)
        }
        state.withLock { $0 = .live(position: position) }
    }

    /// Creates the read model's tables (and checkpoint) if they do not exist yet, without applying anything: services
    /// call it before they serve, so no request meets a missing table.
    public func prepare() async throws {
        _ = try await target.prepare()
    }

    private func follow() async throws {
        var position = try await target.prepare()
        state.withLock { $0 = .catchingUp(position: position) }
        // Catch up to the end of the log first, so the runner reports live even when nothing new is appended.
        while true {
            let batch = try await store.readAll(after: position, limit: batchSize)
            guard !batch.isEmpty else { break }
            position = try await applyLive(batch)
            state.withLock { $0 = .catchingUp(position: position) }
            if batch.count < batchSize { break }
        }
        let checkpoint = position
        state.withLock { $0 = .live(position: checkpoint) }
        for try await batch in store.subscribe(after: checkpoint, batchSize: batchSize, pollInterval: pollInterval) {
            let position = try await applyLive(batch)
            let live = batch.count < batchSize
            state.withLock { $0 = live ? .live(position: position) : .catchingUp(position: position) }
            let head = live ? position : ((try? await store.headPosition()) ?? position)
            Gauge(label: "waypoint_projection_lag_events", dimensions: [("projection", target.name)]).record(Double(max(0, head - position)))
        }
    }

    private func applyLive(_ batch: [EventEnvelope]) async throws -> Int64 {
        try await lock.withLock { try await self.target.apply(batch) }
    }

    /// Rebuilds the read model from the log into fresh tables and swaps them in; the live tables keep serving reads
    /// (and keep being updated) until the swap, which happens atomically with the final catch-up.
    ///
    /// - Returns: the position the rebuilt model includes.
    @discardableResult
    public func rebuild() async throws -> Int64 {
        _ = try await target.prepare()
        let tables = try await target.beginRebuild()
        var position: Int64 = 0
        logger.info("rebuild started", metadata: ["generation": "\(tables.generation)"])
        while true {
            let batch = try await store.readAll(after: position, limit: batchSize)
            guard let last = batch.last else { break }
            try await target.applyToRebuild(batch, tables: tables)
            position = last.position
            if batch.count < batchSize { break }
        }
        let replayed = position
        let final = try await lock.withLock {
            var remaining: [EventEnvelope] = []
            var end = replayed
            while true {
                let batch = try await self.store.readAll(after: end, limit: self.batchSize)
                guard let last = batch.last else { break }
                remaining += batch
                end = last.position
            }
            try await self.target.finishRebuild(remaining, tables: tables, position: end)
            return end
        }
        state.withLock { if $0.isHealthy { $0 = .live(position: max(final, $0.position)) } }
        logger.info("rebuild finished", metadata: ["generation": "\(tables.generation)", "position": "\(final)"])
        return final
    }
}
