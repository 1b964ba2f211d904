import Foundation
import Messaging
import ServiceKit

/// Everything `tour-management` reads at start-up: ServiceKit's keys (port 8082 by default, JWKS of `auth`), the
/// runtime's storage and transport keys (`WAYPOINT_DATA_DIR`, `WAYPOINT_POSTGRES_URL`, `WAYPOINT_KAFKA_BROKERS`), and
/// `WAYPOINT_REFERENCE_DATA_DIR` for the gazetteer imported on first start.
public struct TourManagementConfiguration: Sendable {
    public static let serviceName = "tour-management"
    public static let defaultPort = 8082

    public var service: ServiceConfiguration
    public var runtime: RuntimeSettings

    public init(service: ServiceConfiguration, runtime: RuntimeSettings) {
        self.service = service
        self.runtime = runtime
    }

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> TourManagementConfiguration {
        TourManagementConfiguration(
            service: try ServiceConfiguration.fromEnvironment(serviceName: serviceName, defaultPort: defaultPort, environment: environment),
            runtime: try RuntimeSettings.fromEnvironment(serviceName: serviceName, environment: environment))
    }
}
