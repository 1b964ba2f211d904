import Logging
import ServiceKit

/// A service's configuration as the generic `serve` command reads it: ServiceKit's HTTP settings and the runtime
/// settings its storage opens with.
public protocol StoredServiceConfiguration: Sendable {
    /// Host, port, limits, token settings, log format.
    var service: ServiceConfiguration { get }
    /// Backend, data directory, Kafka brokers, personal-data key.
    var runtime: RuntimeSettings { get }
    /// Reads the configuration from `environment`.
    static func fromEnvironment(_ environment: [String: String]) throws -> Self
}

extension ServableService where Configuration: StoredServiceConfiguration, Storage == ServiceStorage {
    /// `Configuration.fromEnvironment(environment)`.
    public static func configuration(from environment: [String: String]) throws -> Configuration {
        try Configuration.fromEnvironment(environment)
    }

    /// Logging from the configuration, then ``ServiceStorage`` open for as long as `body` runs (``ServiceLauncher``).
    public static func withStorage<T: Sendable>(_ configuration: Configuration,
                                                _ body: @Sendable (ServiceStorage, Logger) async throws -> T) async throws -> T {
        try await ServiceLauncher.run(service: configuration.service, runtime: configuration.runtime, body)
    }
}
