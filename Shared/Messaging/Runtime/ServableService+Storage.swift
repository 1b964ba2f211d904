import Logging
import ServiceKit

/// A service's configuration as the generic `serve` command reads it: ServiceKit's HTTP settings
/// (``ServableConfiguration``) and the runtime settings its storage opens with.
public protocol StoredServiceConfiguration: ServableConfiguration {
    /// Backend, data directory, Kafka brokers, personal-data key.
    var runtime: RuntimeSettings { get }
}

extension ServableService where Configuration: StoredServiceConfiguration, Storage == ServiceStorage {
    /// Logging from the configuration, then ``ServiceStorage`` open for as long as `body` runs (``ServiceLauncher``).
    public static func withStorage<T: Sendable>(_ configuration: Configuration,
                                                _ body: @Sendable (ServiceStorage, Logger) async throws -> T) async throws -> T {
        try await ServiceLauncher.run(service: configuration.service, runtime: configuration.runtime, body)
    }
}
