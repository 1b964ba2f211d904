import ServiceLifecycle

/// A running projection, whatever its store and target: what services register for readiness and what tools and tests
/// drive (`catchUp`, `rebuild`). ``ProjectionRunner`` is the implementation.
public protocol ProjectionRunning: Service, Sendable {
    /// The projection's name (its checkpoint key).
    var name: String { get }
    /// Where it stands.
    var status: ProjectionStatus { get }
    /// Creates the read model's tables if needed, applying nothing (call before serving reads).
    func prepare() async throws
    /// Applies everything currently in the log, then returns.
    func catchUp() async throws
    /// Replays the whole log into fresh tables and swaps them in; returns the position reached.
    @discardableResult func rebuild() async throws -> Int64
}

extension ProjectionRunner: ProjectionRunning {
    public var name: String { target.name }
}

extension ProjectionStatus {
    /// Caught up with the log (and following it).
    public var isLive: Bool {
        if case .live = self { return true }
        return false
    }
}

/// Waits until every one of `projections` has caught up with the log once (or the task is cancelled): scheduled work
/// that reads a read model must not act on one still being created or replayed.
public func waitUntilLive(_ projections: [any ProjectionRunning], poll: Duration = .milliseconds(100)) async {
    while !Task.isCancelled, !projections.allSatisfy({ $0.status.isLive }) {
        try? await Task.sleep(for: poll)
    }
}
