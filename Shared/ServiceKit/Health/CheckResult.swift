/// The answer of one readiness check.
public enum CheckResult: Sendable, Equatable {
    /// The component can serve traffic.
    case ready
    /// The component cannot serve traffic yet (or any more); the reason is shown in `/health/ready`.
    case notReady(String)

    /// Whether this is ``ready``.
    public var isReady: Bool { self == .ready }
}
