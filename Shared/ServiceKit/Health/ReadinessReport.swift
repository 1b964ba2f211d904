/// The body of `/health/ready`: overall status and every check by name.
public struct ReadinessReport: Codable, Sendable, Equatable {
    /// One check's outcome.
    public struct Check: Codable, Sendable, Equatable {
        /// The name the check was registered under, e.g. `projection.tour-catalogue`.
        public var name: String
        /// `pass` or `fail`.
        public var status: String
        /// Why it fails; absent when it passes.
        public var detail: String?

        /// Creates a check outcome.
        public init(name: String, status: String, detail: String?) {
            self.name = name
            self.status = status
            self.detail = detail
        }
    }

    /// `ready`, `not-ready` (some check fails) or `draining` (shutting down).
    public var status: String
    /// Every registered check, sorted by name.
    public var checks: [Check]

    /// Creates a report.
    public init(status: String, checks: [Check]) {
        self.status = status
        self.checks = checks
    }

    /// Whether the service should receive traffic (status `ready`).
    public var isReady: Bool { status == "ready" }

    /// The names of the checks that fail.
    public var failing: [String] { checks.filter { $0.status != "pass" }.map(\.name) }
}
