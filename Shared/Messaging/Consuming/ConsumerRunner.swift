import EventSourcing
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Feeds events from an ``EventSource`` into a ``ConsumerTarget``: apply in one local transaction, then acknowledge.
///
/// A redelivered event changes nothing (dedupe in the target). An event the handler cannot apply stops the consumer
/// loudly — error log, `status` failed (readiness 503), metric — and it is not acknowledged, so it is never skipped.
/// Transport errors (producer down, broker gone) are retried with back-off and reported in `status`.
public final class ConsumerRunner<Source: EventSource, Target: ConsumerTarget>: Service, Sendable {
    let source: Source
    let target: Target
    let batchSize: Int
    let pollTimeout: Duration
    let logger: Logger
    private let state = Mutex(ConsumerStatus.starting)
    private let applied = Mutex(0)

    /// Creates a runner.
    public init(source: Source, target: Target, batchSize: Int = 500, pollTimeout: Duration = .seconds(1),
                logger: Logger = Logger(label: "waypoint.consumer")) {
        self.source = source
        self.target = target
        self.batchSize = batchSize
        self.pollTimeout = pollTimeout
        var logger = logger
        logger[metadataKey: "consumer"] = "\(target.name)"
        self.logger = logger
    }

    /// The consumer's current state.
    public var status: ConsumerStatus { state.withLock { $0 } }

    /// Events this instance applied (redeliveries it skipped do not count).
    public var appliedEvents: Int { applied.withLock { $0 } }

    /// Runs until shutdown; on graceful shutdown the transport is closed (Kafka commits stored offsets).
    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await self.follow() }
        } catch let failure as ConsumerFailure {
            state.withLock { $0 = .failed(reason: failure.description) }
            Counter(label: "waypoint_consumer_failures_total", dimensions: [("consumer", target.name)]).increment()
            logger.error("consumer stopped", metadata: [
                "event.source": "\(failure.event.source)", "event.type": "\(failure.event.eventType)",
                "event.stream": "\(failure.event.streamID)", "event.version": "\(failure.event.streamVersion)",
                "error": "\(failure.reason)",
            ])
            try? await gracefulShutdown()
        } catch is CancellationError {}
        await source.close()
    }

    private func follow() async throws {
        var positions = try await target.prepare()
        var backoff = Duration.milliseconds(100)
        state.withLock { $0 = .running(positions: positions, transportError: nil) }
        while !Task.isCancelled {
            let batch: [IncomingEvent]
            do {
                batch = try await source.next(maxEvents: batchSize, timeout: pollTimeout, positions: positions)
                backoff = .milliseconds(100)
            } catch is CancellationError {
                return
            } catch {
                state.withLock { $0 = .running(positions: positions, transportError: "\(error)") }
                logger.warning("event source unavailable; retrying", metadata: ["error": "\(error)", "retry.in": "\(backoff)"])
                try await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
                continue
            }
            guard !batch.isEmpty else {
                state.withLock { $0 = .running(positions: positions, transportError: nil) }
                continue
            }
            let count = try await target.apply(batch.map(\.event))
            // Applied is applied: the status says so before the (possibly slow) acknowledgement to the transport.
            for incoming in batch {
                positions[incoming.event.source] = max(positions[incoming.event.source] ?? 0, incoming.event.position)
            }
            state.withLock { $0 = .running(positions: positions, transportError: nil) }
            applied.withLock { $0 += count }
            Counter(label: "waypoint_consumer_events_applied_total", dimensions: [("consumer", target.name)]).increment(by: count)
            try await source.acknowledge(batch)
        }
    }
}

/// Where a consumer stands.
public enum ConsumerStatus: Sendable, Hashable {
    /// Not started.
    case starting
    /// Consuming; `positions` are the source log positions applied so far, `transportError` the last transport problem.
    case running(positions: [String: Int64], transportError: String?)
    /// Stopped on an event it cannot apply.
    case failed(reason: String)

    /// Healthy means running with a reachable transport.
    public var isHealthy: Bool {
        if case .running(_, nil) = self { return true }
        return false
    }
}
