import Synchronization

/// A circuit breaker for one upstream: after ``failureThreshold`` consecutive failures it opens and refuses calls for
/// ``openDuration``; then one probe is let through (half-open); the probe's success closes it, its failure reopens it.
///
/// Failures are transport failures (refused, reset, timed out) and 502/503/504 answers; any other answer is a success.
public final class CircuitBreaker: Sendable {
    /// The breaker's state, as exposed in metrics and tests.
    public enum State: String, Sendable, Equatable {
        /// Calls go out; consecutive failures are counted.
        case closed
        /// Calls are refused until the open period ends.
        case open
        /// The open period ended: the next call is a probe.
        case halfOpen = "half-open"
    }

    /// What a caller may do.
    public enum Permission: Sendable, Equatable {
        /// Call the upstream.
        case allowed
        /// Call the upstream as the single half-open probe; report its outcome.
        case probe
        /// Do not call; the circuit is open for at least this long.
        case refused(retryAfter: Duration)
    }

    /// Consecutive failures that open the circuit.
    public let failureThreshold: Int
    /// How long the circuit stays open before a probe.
    public let openDuration: Duration

    private struct Status {
        var consecutiveFailures = 0
        var openedAt: ContinuousClock.Instant?
        var probeInFlight = false
    }

    private let status = Mutex(Status())

    /// A closed breaker.
    public init(failureThreshold: Int = 5, openDuration: Duration = .seconds(30)) {
        self.failureThreshold = failureThreshold
        self.openDuration = openDuration
    }

    /// The current state.
    public var state: State {
        status.withLock { status in
            guard let openedAt = status.openedAt else { return .closed }
            return ContinuousClock.now - openedAt >= openDuration ? .halfOpen : .open
        }
    }

    /// Asks whether a call may go out now.
    public func acquire() -> Permission {
        status.withLock { status in
            guard let openedAt = status.openedAt else { return .allowed }
            let elapsed = ContinuousClock.now - openedAt
            if elapsed < openDuration { return .refused(retryAfter: openDuration - elapsed) }
            if status.probeInFlight { return .refused(retryAfter: .seconds(1)) }
            status.probeInFlight = true
            return .probe
        }
    }

    /// Reports the outcome of a call made under `permission`.
    public func record(success: Bool, permission: Permission) {
        status.withLock { status in
            if permission == .probe { status.probeInFlight = false }
            if success {
                status = Status()
                return
            }
            status.consecutiveFailures += 1
            if permission == .probe || status.consecutiveFailures >= failureThreshold {
                status.openedAt = ContinuousClock.now
            }
        }
    }
}
