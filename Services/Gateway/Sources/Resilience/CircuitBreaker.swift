import Synchronization

/// A circuit breaker for one upstream: after ``failureThreshold`` consecutive failures it opens and refuses calls;
/// when the open period ends one probe is let through (half-open); the probe's success closes it, its failure
/// reopens it for twice as long (exponential back-off from ``initialOpenDuration`` up to ``openDuration``, as Envoy's
/// outlier detection ejects for longer each time). A service that reports itself ready closes it at once
/// (``closeBecauseReady()``, driven by ``CircuitRecovery``): a restarted service is routed again as soon as it
/// answers `/health/ready`, not when a long open period happens to end.
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
    /// The longest open period (the back-off's ceiling).
    public let openDuration: Duration
    /// The first open period after the circuit was closed.
    public let initialOpenDuration: Duration

    private struct Status {
        var consecutiveFailures = 0
        var openedAt: ContinuousClock.Instant?
        /// The current open period (doubles with each failed probe).
        var period: Duration = .zero
        var probeInFlight = false
    }

    private let status = Mutex(Status())

    /// A closed breaker. The first open period is `initialOpenDuration` (at most `openDuration`); each failed probe
    /// doubles it, up to `openDuration`.
    public init(failureThreshold: Int = 5, openDuration: Duration = .seconds(30), initialOpenDuration: Duration = .seconds(1)) {
        self.failureThreshold = failureThreshold
        self.openDuration = openDuration
        self.initialOpenDuration = min(initialOpenDuration, openDuration)
    }

    /// The current state.
    public var state: State {
        status.withLock { status in
            guard let openedAt = status.openedAt else { return .closed }
            return ContinuousClock.now - openedAt >= status.period ? .halfOpen : .open
        }
    }

    /// The open period now in force (zero when closed).
    public var currentOpenDuration: Duration { status.withLock { $0.openedAt == nil ? .zero : $0.period } }

    /// Asks whether a call may go out now.
    public func acquire() -> Permission {
        status.withLock { status in
            guard let openedAt = status.openedAt else { return .allowed }
            let elapsed = ContinuousClock.now - openedAt
            if elapsed < status.period { return .refused(retryAfter: status.period - elapsed) }
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
            if permission == .probe, status.openedAt != nil {
                status.period = min(status.period * 2, openDuration)
                status.openedAt = ContinuousClock.now
            } else if status.openedAt == nil, status.consecutiveFailures >= failureThreshold {
                status.period = initialOpenDuration
                status.openedAt = ContinuousClock.now
            }
        }
    }

    /// The call made under `permission` ended for a reason that says nothing about the upstream (the client broke its
    /// upload off, or its body was too large): counts neither way; a probe's slot is freed.
    public func release(_ permission: Permission) {
        guard permission == .probe else { return }
        status.withLock { $0.probeInFlight = false }
    }

    /// The service answered its readiness check: close the circuit now (no-op when closed). Returns whether it was open.
    @discardableResult
    public func closeBecauseReady() -> Bool {
        status.withLock { status in
            guard status.openedAt != nil else { return false }
            status = Status()
            return true
        }
    }
}
