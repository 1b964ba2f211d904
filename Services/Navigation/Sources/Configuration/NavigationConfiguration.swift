import Foundation
import Messaging
import RoadNetwork
import ServiceKit

/// Everything `navigation` reads at start-up: ServiceKit's keys (port 8084 by default, JWKS of `auth`), the runtime's
/// storage and transport keys (`WAYPOINT_DATA_DIR`, `WAYPOINT_POSTGRES_URL`, `WAYPOINT_KAFKA_BROKERS`), the producers it
/// reads on the embedded transport (`WAYPOINT_AUTH_URL`, `WAYPOINT_PATH_REVIEW_URL`, `WAYPOINT_TOUR_MANAGEMENT_URL`),
/// and its own keys:
///
/// | key (`WAYPOINT_NAVIGATION_…`) | default | meaning |
/// |---|---|---|
/// | `EXTRACTS` | the reference data's `krems.osm.gz` | comma-separated OSM extracts (`.osm`, `.osm.gz`, `.osm.pbf`) routes are searched on |
/// | `OVERLAY_REFRESH_MS` | `250` | how often an instance looks for a changed community layer (approved paths, conditions, obstacles) to swap into its router (50–60000) |
/// | `SNAP_RADIUS_M` | `200` | how far a route's point may lie from the nearest street before the search answers `NoSegment` (10–2000) |
///
/// The road network's compiled cache lives in `<data dir>/navigation-roads/`.
public struct NavigationConfiguration: Sendable {
    public static let serviceName = "navigation"
    public static let defaultPort = 8084

    public var service: ServiceConfiguration
    public var runtime: RuntimeSettings
    public var endpoints: ServiceEndpoints
    /// Paths of the OSM extracts.
    public var extracts: [String]
    /// How often the community layer is looked at for changes.
    public var overlayRefresh: Duration
    /// Metres a point may lie from the nearest usable street.
    public var snapRadius: Double

    /// A configuration with every value given (tests); the service reads ``fromEnvironment(_:)``.
    public init(service: ServiceConfiguration, runtime: RuntimeSettings, endpoints: ServiceEndpoints = ServiceEndpoints(),
                extracts: [String], overlayRefresh: Duration = .milliseconds(250), snapRadius: Double = 200) {
        self.service = service
        self.runtime = runtime
        self.endpoints = endpoints
        self.extracts = extracts
        self.overlayRefresh = overlayRefresh
        self.snapRadius = snapRadius
    }

    /// auth's base URL (`WAYPOINT_AUTH_URL`): erased users and revoked sessions on the embedded transport.
    public var authURL: URL { endpoints.baseURL(of: "auth") ?? ServiceEndpoints.defaultBaseURLs["auth"]! }

    /// path-review's base URL (`WAYPOINT_PATH_REVIEW_URL`, default `http://127.0.0.1:8083`): the community layer on the
    /// embedded transport.
    public var pathReviewURL: URL { endpoints.baseURL(of: "path-review") ?? ServiceEndpoints.localBaseURLs["path-review"]! }

    /// tour-management's base URL (`WAYPOINT_TOUR_MANAGEMENT_URL`): published tours and entitlements.
    public var tourManagementURL: URL { endpoints.baseURL(of: "tour-management") ?? ServiceEndpoints.defaultBaseURLs["tour-management"]! }

    /// Where the road network's cache is kept.
    public var roadCacheDirectory: String { runtime.dataDirectory.appendingPathComponent("navigation-roads", isDirectory: true).path }

    /// Reads every key of the table above; throws ``ConfigurationError`` naming a bad one.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> NavigationConfiguration {
        let reader = EnvironmentReader(serviceName: serviceName, environment: environment)
        return NavigationConfiguration(
            service: try ServiceConfiguration.fromEnvironment(serviceName: serviceName, defaultPort: defaultPort, environment: environment),
            runtime: try RuntimeSettings.fromEnvironment(serviceName: serviceName, environment: environment),
            endpoints: try ServiceEndpoints.fromEnvironment(serviceName: serviceName, environment: environment),
            extracts: try RoadNetworkExtracts.configured(reader.value("EXTRACTS")?.value, environment: environment),
            overlayRefresh: .milliseconds(try reader.integer("OVERLAY_REFRESH_MS", default: 250, in: 50...60_000)),
            snapRadius: Double(try reader.integer("SNAP_RADIUS_M", default: 200, in: 10...2_000)))
    }
}
