import Foundation
import Messaging
import RoadNetwork
import ServiceKit

/// Everything `record-trip` reads at start-up: ServiceKit's keys (port 8085 by default, JWKS of `auth`), the runtime's
/// storage and transport keys (`WAYPOINT_DATA_DIR`, `WAYPOINT_POSTGRES_URL`, `WAYPOINT_KAFKA_BROKERS`,
/// `WAYPOINT_PERSONAL_DATA_KEY`), `WAYPOINT_AUTH_URL` (auth's feed, for `UserErased`), and its own keys:
///
/// | key (`WAYPOINT_RECORD_TRIP_…`) | default | meaning |
/// |---|---|---|
/// | `EXTRACTS` | the reference data's `krems.osm.gz` | comma-separated OSM extracts (`.osm`, `.osm.gz`, `.osm.pbf`) of the road network |
/// | `WEATHER_URL` | empty: no weather | base URL of an Open-Meteo-compatible API |
/// | `WEATHER_TIMEOUT_MS` | `2000` | how long a finish waits for the weather before leaving it to the backfill |
/// | `WEATHER_BACKFILL_SECONDS` | `60` | pause between rounds of the weather backfill worker |
/// | `FINISH_WAIT_MS` | `3000` | how long a finish or import waits for the analysis before answering 202 (a client's `Prefer: wait=` may ask for less); keep it under the gateway's upstream timeout (5 s) |
///
/// The road network's compiled cache lives in `<data dir>/record-trip-roads/`.
public struct RecordTripConfiguration: Sendable {
    public static let serviceName = "record-trip"
    public static let defaultPort = 8085

    public var service: ServiceConfiguration
    public var runtime: RuntimeSettings
    public var endpoints: ServiceEndpoints
    /// Paths of the OSM extracts.
    public var extracts: [String]
    /// The weather provider's base URL; `nil`: none.
    public var weatherURL: URL?
    public var weatherTimeout: Duration
    public var weatherBackfillInterval: Duration
    /// The longest a finish or import waits for its analysis before answering 202 Accepted.
    public var finishWait: Duration

    /// A configuration with every value given (tests); the service reads ``fromEnvironment(_:)``.
    public init(service: ServiceConfiguration, runtime: RuntimeSettings, endpoints: ServiceEndpoints = ServiceEndpoints(),
                extracts: [String], weatherURL: URL? = nil, weatherTimeout: Duration = .seconds(2),
                weatherBackfillInterval: Duration = .seconds(60), finishWait: Duration = .seconds(3)) {
        self.service = service
        self.runtime = runtime
        self.endpoints = endpoints
        self.extracts = extracts
        self.weatherURL = weatherURL
        self.weatherTimeout = weatherTimeout
        self.weatherBackfillInterval = weatherBackfillInterval
        self.finishWait = finishWait
    }

    /// auth's base URL (`WAYPOINT_AUTH_URL`, default `http://127.0.0.1:8081`).
    public var authURL: URL { endpoints.baseURL(of: "auth") ?? ServiceEndpoints.defaultBaseURLs["auth"]! }

    /// Where the road network's cache is kept.
    public var roadCacheDirectory: String { runtime.dataDirectory.appendingPathComponent("record-trip-roads", isDirectory: true).path }

    /// Reads every key of the table above; throws ``ConfigurationError`` naming a bad one.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> RecordTripConfiguration {
        let reader = EnvironmentReader(serviceName: serviceName, environment: environment)
        let extracts = try RoadNetworkExtracts.configured(reader.value("EXTRACTS")?.value, environment: environment)
        var weatherURL: URL?
        if let (key, raw) = reader.value("WEATHER_URL") {
            guard let url = URL(string: raw), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ConfigurationError(key: key, value: raw, expected: "an absolute http or https base URL, or empty for no weather")
            }
            weatherURL = url
        }
        return RecordTripConfiguration(
            service: try ServiceConfiguration.fromEnvironment(serviceName: serviceName, defaultPort: defaultPort, environment: environment),
            runtime: try RuntimeSettings.fromEnvironment(serviceName: serviceName, environment: environment),
            endpoints: try ServiceEndpoints.fromEnvironment(serviceName: serviceName, environment: environment),
            extracts: extracts, weatherURL: weatherURL,
            weatherTimeout: .milliseconds(try reader.integer("WEATHER_TIMEOUT_MS", default: 2_000, in: 1...60_000)),
            weatherBackfillInterval: .seconds(try reader.integer("WEATHER_BACKFILL_SECONDS", default: 60, in: 1...86_400)),
            finishWait: .milliseconds(try reader.integer("FINISH_WAIT_MS", default: 3_000, in: 0...60_000)))
    }
}
