import Synchronization

/// The registry behind `/health/ready`: components register checks; the endpoint runs them all.
///
/// Projections, consumers and relays register a closure (`readiness.register("projection.tours") { … }`);
/// the service is ready when every check answers ``CheckResult/ready`` within ``checkTimeout`` and the
/// service is not draining. Shutdown calls ``beginDraining()`` first, so load balancers stop sending
/// traffic before the listener closes.
public final class Readiness: Sendable {
    /// A readiness check; it should answer quickly and honour task cancellation.
    public typealias Check = @Sendable () async -> CheckResult

    /// Time after which a check that has not answered counts as failing (default 2 s).
    public let checkTimeout: Duration

    private struct State {
        var checks: [String: Check] = [:]
        var isDraining = false
    }

    private let state = Mutex(State())

    /// Creates an empty registry.
    public init(checkTimeout: Duration = .seconds(2)) {
        self.checkTimeout = checkTimeout
    }

    /// Registers `check` under `name`, replacing any check of the same name.
    public func register(_ name: String, check: @escaping Check) {
        state.withLock { $0.checks[name] = check }
    }

    /// Removes the check registered under `name`.
    public func unregister(_ name: String) {
        state.withLock { _ = $0.checks.removeValue(forKey: name) }
    }

    /// Marks the service as shutting down: `/health/ready` answers 503 from now on.
    public func beginDraining() {
        state.withLock { $0.isDraining = true }
    }

    /// Whether ``beginDraining()`` has been called.
    public var isDraining: Bool {
        state.withLock { $0.isDraining }
    }

    /// Runs every check concurrently and reports the outcome.
    public func evaluate() async -> ReadinessReport {
        let (checks, draining) = state.withLock { ($0.checks, $0.isDraining) }
        let timeout = checkTimeout
        let results = await withTaskGroup(of: ReadinessReport.Check.self) { group in
            for (name, check) in checks {
                group.addTask { await Self.run(check, named: name, timeout: timeout) }
            }
            var results: [ReadinessReport.Check] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.name < $1.name }
        }
        let status = draining ? "draining" : (results.allSatisfy { $0.status == "pass" } ? "ready" : "not-ready")
        return ReadinessReport(status: status, checks: results)
    }

    private static func run(_ check: @escaping Check, named name: String, timeout: Duration) async -> ReadinessReport.Check {
        let result = await withTaskGroup(of: CheckResult?.self) { group in
            group.addTask { await check() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .notReady("no answer within \(timeout)")
        }
        switch result {
        case .ready: return .init(name: name, status: "pass", detail: nil)
        case .notReady(let reason): return .init(name: name, status: "fail", detail: reason)
        }
    }
}
