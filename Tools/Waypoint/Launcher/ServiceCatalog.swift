/// One process the launcher runs: which executable, which port (relative to the base port), and when it stops.
public struct ServiceDefinition: Sendable, Hashable, Codable {
    /// The service's name, as in `WAYPOINT_<SERVICE>_…` keys and log prefixes (`tour-management`).
    public var name: String
    /// The SwiftPM executable product (`swift build --product NAME`), today always the service's name.
    public var executable: String
    /// Port = base port + this offset (gateway 0, auth 1, tour-management 2, …, analytics 6).
    public var portOffset: Int
    /// Shutdown wave: higher waves stop first (the gateway, then the consumers, then the producers they read).
    public var stopWave: Int
    /// Where it keeps its state, which decides what `--postgres` prepares for it.
    public var storage: Storage
    /// For a further instance of a service (`navigation-2`): the service it is an instance of, whose keys, database and
    /// feed it shares; `nil` for the service itself.
    public var instanceOf: String?

    /// A service's own store.
    public enum Storage: String, Sendable, Hashable, Codable {
        /// None (the gateway): no database, no `POSTGRES_URL`.
        case none
        /// An event log and read models (SQLite file or PostgreSQL database).
        case database
        /// The same, with PostGIS (geographic read models: tours, paths, routes, trips).
        case spatialDatabase
    }

    public init(name: String, executable: String? = nil, portOffset: Int, stopWave: Int, storage: Storage = .database, instanceOf: String? = nil) {
        self.name = name
        self.executable = executable ?? name
        self.portOffset = portOffset
        self.stopWave = stopWave
        self.storage = storage
        self.instanceOf = instanceOf
    }

    /// The `WAYPOINT_<SERVICE>` key segment: upper case, every character other than letters and digits as `_`
    /// (ServiceKit's `EnvironmentReader` rule), e.g. `TOUR_MANAGEMENT`; an instance uses its service's.
    public var keySegment: String {
        String((instanceOf ?? name).uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    /// Instance `number` (2, 3, …) of this service: its own name and port (after the seven of the catalogue), the
    /// same executable, keys, database and feed.
    public func instance(_ number: Int) -> ServiceDefinition {
        ServiceDefinition(name: "\(name)-\(number)", executable: executable, portOffset: ServiceCatalog.all.count + number - 2, stopWave: stopWave,
                          storage: storage, instanceOf: name)
    }
}

/// The platform as DESIGN.md lists it: six services and the gateway, on consecutive ports from 8080.
public enum ServiceCatalog {
    /// The default base port: the gateway's (`WAYPOINT_GATEWAY_PORT`), the others follow it.
    public static let defaultBasePort = 8080

    /// Every process of the platform, in start order (producers before their consumers, the gateway last).
    public static let all: [ServiceDefinition] = [
        ServiceDefinition(name: "auth", portOffset: 1, stopWave: 0),
        ServiceDefinition(name: "tour-management", portOffset: 2, stopWave: 1, storage: .spatialDatabase),
        ServiceDefinition(name: "path-review", portOffset: 3, stopWave: 1, storage: .spatialDatabase),
        ServiceDefinition(name: "navigation", portOffset: 4, stopWave: 1, storage: .spatialDatabase),
        ServiceDefinition(name: "record-trip", portOffset: 5, stopWave: 1, storage: .spatialDatabase),
        ServiceDefinition(name: "analytics", portOffset: 6, stopWave: 2),
        ServiceDefinition(name: "gateway", portOffset: 0, stopWave: 3, storage: .none),
    ]

    /// The services the gateway routes to (every one but itself).
    public static var upstreams: [ServiceDefinition] { all.filter { $0.name != "gateway" } }

    /// Services that may run as several instances (`waypoint up --navigation-instances`, compose): their state is in
    /// the shared store, their graph read-only per instance.
    public static let scalable: Set<String> = ["navigation"]

    /// The definition named `name`, if the platform has one.
    public static func named(_ name: String) -> ServiceDefinition? { all.first { $0.name == name } }
}
