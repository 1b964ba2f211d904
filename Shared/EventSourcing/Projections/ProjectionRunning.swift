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
