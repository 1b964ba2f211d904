import Foundation

/// Which port, URL and environment each process gets: computed once from the options, before anything starts, so a
/// test can check every key without running a process.
///
/// Keys set for every started service (ServiceKit's two spellings: `WAYPOINT_<SERVICE>_<KEY>` wins over `WAYPOINT_<KEY>`):
///
/// | key | value |
/// |---|---|
/// | `WAYPOINT_<SERVICE>_HOST`, `WAYPOINT_<SERVICE>_PORT` | `127.0.0.1`, base port + offset |
/// | `WAYPOINT_DATA_DIR` | `--data-dir` (absolute): each service keeps `<service>.sqlite` there (and its files) |
/// | `WAYPOINT_<SERVICE>_POSTGRES_URL` | with `--postgres`: the server's URL with the service's own database (not the gateway's) |
/// | `WAYPOINT_<PRODUCER>_URL` | base URL of every *started* service (feeds and synchronous calls) |
/// | `WAYPOINT_GATEWAY_<SERVICE>_URL` | the gateway's upstreams: every service of the catalogue, started or not |
/// | `WAYPOINT_GATEWAY_REQUIRED_SERVICES` | the started services: the gateway's readiness waits for these only |
/// | `WAYPOINT_GATEWAY_NOTIFICATIONS_PRODUCERS` | the started services whose feeds carry notifications (tour-management), or `none` |
/// | `WAYPOINT_JWKS_URL` | `<auth URL>/.well-known/jwks.json` |
/// | `WAYPOINT_INTERNAL_TOKEN` | the shared internal-route token |
/// | `WAYPOINT_PERSONAL_DATA_KEY` | the key wrapping personal-data keys, when the data directory has one |
/// | `WAYPOINT_AUTH_PUBLIC_BASE_URL` | the gateway URL (links in auth's mails) |
/// | `WAYPOINT_KAFKA_BROKERS` | `--kafka`, when given |
/// | `WAYPOINT_REFERENCE_DATA_DIR` | `../shared/data` when found (tour-management's gazetteer) |
/// | `WAYPOINT_LOG_FORMAT`, `WAYPOINT_DRAIN_TIMEOUT_SECONDS` | `--log-format`, `--drain-timeout`, when given |
public struct LaunchPlan: Sendable {
    /// What the plan is computed from.
    public struct Options: Sendable, Hashable {
        public var basePort: Int
        public var host: String
        public var dataDirectory: URL
        public var kafkaBrokers: String?
        /// `--postgres`: every service with a store uses its own database on this server instead of SQLite.
        public var postgres: PostgresServer?
        public var internalToken: String
        public var personalDataKey: String?
        public var referenceDataDirectory: String?
        public var logFormat: String?
        /// `WAYPOINT_DRAIN_TIMEOUT_SECONDS` for every service; `nil` keeps the services' default (30 s).
        public var drainTimeoutSeconds: Int?
        /// Services whose executable exists; the others are planned (ports stay reserved) but not started.
        public var available: Set<String>
        /// Services to start among the available ones; `nil` is all of them.
        public var only: Set<String>?
        /// Instances of navigation to start (`--navigation-instances`; more than one needs a shared database, `--postgres`).
        public var navigationInstances = 1

        public init(basePort: Int = ServiceCatalog.defaultBasePort, host: String = "127.0.0.1", dataDirectory: URL,
                    kafkaBrokers: String? = nil, postgres: PostgresServer? = nil, internalToken: String, personalDataKey: String? = nil,
                    referenceDataDirectory: String? = nil, logFormat: String? = nil, drainTimeoutSeconds: Int? = nil,
                    available: Set<String>, only: Set<String>? = nil) {
            self.basePort = basePort
            self.host = host
            self.dataDirectory = dataDirectory
            self.kafkaBrokers = kafkaBrokers
            self.postgres = postgres
            self.internalToken = internalToken
            self.personalDataKey = personalDataKey
            self.referenceDataDirectory = referenceDataDirectory
            self.logFormat = logFormat
            self.drainTimeoutSeconds = drainTimeoutSeconds
            self.available = available
            self.only = only
        }
    }

    /// One service of the plan.
    public struct Entry: Sendable, Hashable {
        public var definition: ServiceDefinition
        public var port: Int
        /// `http://host:port`, no trailing slash.
        public var baseURL: String
        /// Whether its executable exists in this version of the package.
        public var isBuilt: Bool
        /// Whether the launcher starts it (built, and selected by `--only`).
        public var isStarted: Bool

        public var name: String { definition.name }
    }

    public let options: Options
    public let entries: [Entry]

    /// The services' drain timeout the launcher assumes: ServiceKit's default unless `--drain-timeout` overrides it.
    public static let defaultDrainTimeoutSeconds = 30

    /// The services that publish `UserNotified` on their feeds (docs/notifications.md).
    static let notificationProducers: Set<String> = ["tour-management", "path-review", "navigation"]

    public init(_ options: Options) {
        self.options = options
        let extra = options.navigationInstances > 1 ? (2...options.navigationInstances).map { ServiceCatalog.named("navigation")!.instance($0) } : []
        // Further instances start right after their service (before the gateway, which balances over them).
        let definitions = ServiceCatalog.all.flatMap { definition in
            [definition] + (definition.name == "navigation" ? extra : [])
        }
        entries = definitions.map { definition in
            let port = options.basePort + definition.portOffset
            let built = options.available.contains(definition.executable)
            return Entry(definition: definition, port: port, baseURL: "http://\(Self.urlHost(options.host)):\(port)", isBuilt: built,
                         isStarted: built && (options.only?.contains(definition.instanceOf ?? definition.name) ?? true))
        }
    }

    /// The entry of `name`.
    public func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

    /// Where clients reach the platform: the gateway's base URL.
    public var gatewayURL: String { entry("gateway")!.baseURL }

    /// The services that are started, in start order.
    public var started: [Entry] { entries.filter(\.isStarted) }

    /// With `--postgres`: the database of every started service that has a store, in start order.
    public var postgresDatabases: [(entry: Entry, database: String)] {
        guard let server = options.postgres else { return [] }
        return started.filter { $0.definition.storage != .none && $0.definition.instanceOf == nil }.map { ($0, server.databaseName(for: $0.definition)) }
    }

    /// How long the launcher waits for a service to exit after SIGTERM before it sends SIGKILL: longer than the
    /// service's own bound on its graceful shutdown.
    public var stopGracePeriod: Duration {
        .seconds((options.drainTimeoutSeconds ?? Self.defaultDrainTimeoutSeconds) + 10)
    }

    /// The keys the launcher sets, for `entry`.
    public func plannedEnvironment(for entry: Entry) -> [String: String] {
        var environment: [String: String] = [:]
        let segment = entry.definition.keySegment
        environment["WAYPOINT_\(segment)_HOST"] = options.host
        environment["WAYPOINT_\(segment)_PORT"] = String(entry.port)
        environment["WAYPOINT_DATA_DIR"] = options.dataDirectory.path
        if let server = options.postgres, entry.definition.storage != .none {
            environment["WAYPOINT_\(segment)_POSTGRES_URL"] = server.url(database: server.databaseName(for: entry.definition))
        }
        for other in entries where other.isStarted && other.definition.instanceOf == nil {
            environment["WAYPOINT_\(other.definition.keySegment)_URL"] = other.baseURL
        }
        if entry.name == "gateway" {
            for upstream in entries where upstream.name != "gateway" && upstream.definition.instanceOf == nil {
                environment["WAYPOINT_GATEWAY_\(upstream.definition.keySegment)_URL"] = upstream.baseURL
                let instances = entries.filter { $0.isStarted && ($0.name == upstream.name || $0.definition.instanceOf == upstream.name) }
                if instances.count > 1 {
                    environment["WAYPOINT_GATEWAY_\(upstream.definition.keySegment)_URLS"] = instances.map(\.baseURL).joined(separator: ",")
                }
            }
            let required = entries.filter { $0.isStarted && $0.name != "gateway" && $0.definition.instanceOf == nil }.map(\.name)
            environment["WAYPOINT_GATEWAY_REQUIRED_SERVICES"] = required.isEmpty ? "none" : required.joined(separator: ",")
            // The push stream reads the feeds of the started services that publish notifications (an unstarted one
            // would keep the gateway's readiness waiting for its first catch-up).
            let producers = required.filter { Self.notificationProducers.contains($0) }
            environment["WAYPOINT_GATEWAY_NOTIFICATIONS_PRODUCERS"] = producers.isEmpty ? "none" : producers.joined(separator: ",")
        }
        if let auth = self.entry("auth") { environment["WAYPOINT_JWKS_URL"] = "\(auth.baseURL)/.well-known/jwks.json" }
        environment["WAYPOINT_INTERNAL_TOKEN"] = options.internalToken
        if let key = options.personalDataKey { environment["WAYPOINT_PERSONAL_DATA_KEY"] = key }
        if entry.name == "auth" { environment["WAYPOINT_AUTH_PUBLIC_BASE_URL"] = gatewayURL }
        if let brokers = options.kafkaBrokers { environment["WAYPOINT_KAFKA_BROKERS"] = brokers }
        if let directory = options.referenceDataDirectory { environment["WAYPOINT_REFERENCE_DATA_DIR"] = directory }
        if let format = options.logFormat { environment["WAYPOINT_LOG_FORMAT"] = format }
        if let seconds = options.drainTimeoutSeconds { environment["WAYPOINT_DRAIN_TIMEOUT_SECONDS"] = String(seconds) }
        return environment
    }

    /// The whole environment of `entry`'s process: the launcher's own environment without any key the launcher
    /// manages (in either spelling, so a stray `WAYPOINT_TOUR_MANAGEMENT_AUTH_URL` or `WAYPOINT_POSTGRES_URL` in the
    /// operator's shell cannot point one service elsewhere), plus ``plannedEnvironment(for:)``.
    public func environment(for entry: Entry, inheriting inherited: [String: String]) -> [String: String] {
        var environment = inherited.filter { !Self.isManaged($0.key) }
        environment.merge(plannedEnvironment(for: entry)) { _, planned in planned }
        return environment
    }

    /// Keys that only the launcher sets: storage, transport, addresses and shared secrets, in both spellings.
    static let managedSuffixes = ["HOST", "PORT", "DATA_DIR", "POSTGRES_URL", "POSTGRES_SCHEMA", "KAFKA_BROKERS", "JWKS_URL",
                                  "INTERNAL_TOKEN", "PERSONAL_DATA_KEY"]
        + ServiceCatalog.all.map { "\($0.keySegment)_URL" }

    /// Whether the launcher owns `key` (`WAYPOINT_PORT`, `WAYPOINT_AUTH_PORT`, `WAYPOINT_ANALYTICS_AUTH_URL`, …).
    public static func isManaged(_ key: String) -> Bool {
        guard key.hasPrefix("WAYPOINT_") else { return false }
        let rest = key.dropFirst("WAYPOINT_".count)
        for suffix in managedSuffixes {
            if rest == suffix { return true }
            for service in ServiceCatalog.all where rest == "\(service.keySegment)_\(suffix)" { return true }
        }
        return false
    }

    private static func urlHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}
