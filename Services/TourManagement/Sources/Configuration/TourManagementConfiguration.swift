import Foundation
import Messaging
import ServiceKit

/// Everything `tour-management` reads at start-up: ServiceKit's keys (port 8082 by default, JWKS of `auth`), the
/// runtime's storage and transport keys (`WAYPOINT_DATA_DIR`, `WAYPOINT_POSTGRES_URL`, `WAYPOINT_KAFKA_BROKERS`),
/// `WAYPOINT_REFERENCE_DATA_DIR` for the gazetteer imported on first start, and `WAYPOINT_AUTH_URL` (auth's base URL:
/// its embedded feed and public profiles).
public struct TourManagementConfiguration: Sendable {
    public static let serviceName = "tour-management"
    public static let defaultPort = 8082

    public var service: ServiceConfiguration
    public var runtime: RuntimeSettings
    /// Base URLs of the other services (auth).
    public var endpoints: ServiceEndpoints
    /// Platform fee, payment provider and its secrets (`WAYPOINT_PLATFORM_FEE_BPS`, `WAYPOINT_PAYMENTS_*`, `WAYPOINT_STRIPE_*`).
    public var commerce: CommerceConfiguration

    public init(service: ServiceConfiguration, runtime: RuntimeSettings, endpoints: ServiceEndpoints = ServiceEndpoints(),
                commerce: CommerceConfiguration = CommerceConfiguration()) {
        self.service = service
        self.runtime = runtime
        self.endpoints = endpoints
        self.commerce = commerce
    }

    /// auth's base URL (`WAYPOINT_AUTH_URL`, default `http://127.0.0.1:8081`).
    public var authURL: URL { endpoints.baseURL(of: "auth") ?? ServiceEndpoints.defaultBaseURLs["auth"]! }

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> TourManagementConfiguration {
        TourManagementConfiguration(
            service: try ServiceConfiguration.fromEnvironment(serviceName: serviceName, defaultPort: defaultPort, environment: environment),
            runtime: try RuntimeSettings.fromEnvironment(serviceName: serviceName, environment: environment),
            endpoints: try ServiceEndpoints.fromEnvironment(serviceName: serviceName, environment: environment),
            commerce: try CommerceConfiguration.fromEnvironment(environment, serviceName: serviceName))
    }
}
