import Foundation
import Messaging
import RoadNetwork
import ServiceKit

/// Everything `path-review` reads at start-up: ServiceKit's keys (port 8083 by default, JWKS of `auth`), the runtime's
/// storage and transport keys (`WAYPOINT_DATA_DIR`, `WAYPOINT_POSTGRES_URL`, `WAYPOINT_KAFKA_BROKERS`,
/// `WAYPOINT_PERSONAL_DATA_KEY`), and its own keys:
///
/// | key (`WAYPOINT_PATH_REVIEW_…`) | default | meaning |
/// |---|---|---|
/// | `EXTRACTS` | the reference data's `krems.osm.gz` | comma-separated OSM extracts (`.osm`, `.osm.gz`, `.osm.pbf`) of the road network streets come from |
/// | `CLAIM_MINUTES` | `30` | how long a moderator's claim on a review-queue item lasts (1–1440) |
/// | `PATH_OBSTACLE_FADE_DAYS` | `30` | days an approved path's obstacle may go unconfirmed before it fades (1–3650; read as `WAYPOINT_PATH_OBSTACLE_FADE_DAYS`) |
/// | `FEATURE_CACHE_MB` | `64` | MiB of pre-rendered `GET /v1/paths?bbox=` features held in memory (0–4096; 0 holds none) |
///
/// The road network's compiled cache lives in `<data dir>/path-review-roads/`.
public struct PathReviewConfiguration: Sendable {
    public static let serviceName = "path-review"
    public static let defaultPort = 8083

    public var service: ServiceConfiguration
    public var runtime: RuntimeSettings
    public var endpoints: ServiceEndpoints
    /// Paths of the OSM extracts.
    public var extracts: [String]
    /// How long a moderator's claim on a review-queue item lasts.
    public var claimDuration: Duration
    /// Days an obstacle of an approved path may go unconfirmed before it fades (``ObstacleConfidence``).
    public var obstacleFadeDays: Int = 30
    /// MiB of pre-rendered features the bbox listing holds in memory (``ApprovedFeatureCache``).
    public var featureCacheMegabytes = PathReviewConfiguration.defaultFeatureCacheMegabytes
    public static let defaultFeatureCacheMegabytes = 64

    /// A configuration with every value given (tests); the service reads ``fromEnvironment(_:)``.
    public init(service: ServiceConfiguration, runtime: RuntimeSettings, endpoints: ServiceEndpoints = ServiceEndpoints(),
                extracts: [String], claimDuration: Duration = .seconds(1_800)) {
        self.service = service
        self.runtime = runtime
        self.endpoints = endpoints
        self.extracts = extracts
        self.claimDuration = claimDuration
    }

    /// The base URL of auth, whose feed tells of erased users on the embedded transport (`WAYPOINT_AUTH_URL`).
    public var authURL: URL { endpoints.baseURL(of: "auth") ?? ServiceEndpoints.defaultBaseURLs["auth"]! }

    /// Where the road network's cache is kept.
    public var roadCacheDirectory: String { runtime.dataDirectory.appendingPathComponent("path-review-roads", isDirectory: true).path }

    /// Reads every key of the table above; throws ``ConfigurationError`` naming a bad one.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> PathReviewConfiguration {
        let reader = EnvironmentReader(serviceName: serviceName, environment: environment)
        return PathReviewConfiguration(
            service: try ServiceConfiguration.fromEnvironment(serviceName: serviceName, defaultPort: defaultPort, environment: environment),
            runtime: try RuntimeSettings.fromEnvironment(serviceName: serviceName, environment: environment),
            endpoints: try ServiceEndpoints.fromEnvironment(serviceName: serviceName, environment: environment),
            extracts: try RoadNetworkExtracts.configured(reader.value("EXTRACTS")?.value, environment: environment),
            claimDuration: .seconds(60 * (try reader.integer("CLAIM_MINUTES", default: 30, in: 1...1_440))))
            .withObstacleFadeDays(try reader.integer("PATH_OBSTACLE_FADE_DAYS", default: 30, in: 1...3_650))
            .withFeatureCacheMegabytes(try reader.integer("FEATURE_CACHE_MB", default: defaultFeatureCacheMegabytes, in: 0...4_096))
    }

    /// This configuration with `days` as ``obstacleFadeDays``.
    public func withObstacleFadeDays(_ days: Int) -> PathReviewConfiguration {
        var copy = self
        copy.obstacleFadeDays = days
        return copy
    }

    /// This configuration with `megabytes` as ``featureCacheMegabytes``.
    public func withFeatureCacheMegabytes(_ megabytes: Int) -> PathReviewConfiguration {
        var copy = self
        copy.featureCacheMegabytes = megabytes
        return copy
    }
}
