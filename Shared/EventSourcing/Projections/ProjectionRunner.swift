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

    /// Applies everything currently in the log, then returns (for tools, tests and rebuild commands). The checkpoint
    /// ends at the last position read, also when the events after the last applied one were of types passed over.
    public func catchUp() async throws {
        var position = try await target.prepare()
        var saved = position
        while true {
            let page = try await read(after: position)
            guard page.scanned > position else { break }
            if !page.events.isEmpty { saved = try await applyLive(page.events) }
            position = page.scanned
        }
        if position > saved { try await advance(to: position) }
        state.withLock { $0 = .live(position: position) }
    }

    /// Creates the read model's tables (and checkpoint) if they do not exist yet, without applying anything: services
    /// call it before they serve, so no request meets a missing table.
    public func prepare() async throws {
        _ = try await target.prepare()
    }

    private func follow() async throws {
        var position = try await target.prepare()
        var saved = (position: position, at: ContinuousClock.now)
        state.withLock { $0 = .catchingUp(position: position) }
        // Catch up to the end of the log first, so the runner reports live even when nothing new is appended; then
        // follow it, waiting for appends whenever a read finds nothing new.
        var caughtUp = false
        while !Task.isCancelled {
            let page = try await read(after: position)
            guard page.scanned > position else {
                if !caughtUp {
                    caughtUp = true
                    let checkpoint = position
                    state.withLock { $0 = .live(position: checkpoint) }
                }
                // Idle: store the positions passed over since the last save, so the stored checkpoint reaches the head
                // of a quiet log (callers wait for it: erasing a review author waits for the `reviews` checkpoint to
                // pass the head). A projection of some types is not woken by the others, so without this a trailing
                // run of them left the checkpoint behind until its next own event.
                if position > saved.position {
                    try await advance(to: position)
                    saved = (position, .now)
                }
                if let types = target.eventTypes {
                    await store.waitForAppends(after: position, types: types, timeout: pollInterval)
                } else {
                    await store.waitForAppends(after: position, timeout: pollInterval)
                }
                continue
            }
            if !page.events.isEmpty { saved = (try await applyLive(page.events), .now) }
            // A full page (or a read that stopped at its scan bound) says the log goes on: still catching up.
            let full = page.events.count == batchSize || page.scanned - position >= Int64(TypedPage.scanLimit)
            position = page.scanned
            // Positions passed over (events of other types) move the checkpoint at most once per
            // `quietCheckpointInterval`: after a restart the projection reads past them again, applying nothing.
            if position > saved.position, ContinuousClock.now - saved.at >= Self.quietCheckpointInterval {
                try await advance(to: position)
                saved = (position, .now)
            }
            let reached = position
            guard caughtUp else {
                state.withLock { $0 = .catchingUp(position: reached) }
                if !full {
                    caughtUp = true
                    state.withLock { $0 = .live(position: reached) }
                }
                continue
            }
            state.withLock { $0 = full ? .catchingUp(position: reached) : .live(position: reached) }
            let head = full ? ((try? await store.headPosition()) ?? position) : position
            Gauge(label: "waypoint_projection_lag_events", dimensions: [("projection", target.name)]).record(Double(max(0, head - position)))
        }
    }

    /// Longest time the checkpoint stays behind positions passed over.
    static var quietCheckpointInterval: Duration { .seconds(1) }

    /// The next events to apply after `position` and how far the read went: every event for a projection of all
    /// types, only its types for one that names them.
    private func read(after position: Int64) async throws -> TypedPage {
        if let types = target.eventTypes {
            return try await store.readAll(after: position, limit: batchSize, types: types)
        }
        let batch = try await store.readAll(after: position, limit: batchSize)
        return TypedPage(events: batch, scanned: batch.last?.position ?? position)
    }

    private func applyLive(_ batch: [EventEnvelope]) async throws -> Int64 {
        try await lock.withLock { try await self.target.apply(batch) }
    }

    private func advance(to position: Int64) async throws {
        try await lock.withLock { try await self.target.advance(to: position) }
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
            let page = try await read(after: position)
            guard page.scanned > position else { break }
            if !page.events.isEmpty { try await target.applyToRebuild(page.events, tables: tables) }
            position = page.scanned
        }
        let replayed = position
        let final = try await lock.withLock {
            var remaining: [EventEnvelope] = []
            var end = replayed
            while true {
                let page = try await self.read(after: end)
                guard page.scanned > end else { break }
                remaining += page.events
                end = page.scanned
            }
            try await self.target.finishRebuild(remaining, tables: tables, position: end)
            return end
        }
        state.withLock { if $0.isHealthy { $0 = .live(position: max(final, $0.position)) } }
        logger.info("rebuild finished", metadata: ["generation": "\(tables.generation)", "position": "\(final)"])
        return final
    }
}
