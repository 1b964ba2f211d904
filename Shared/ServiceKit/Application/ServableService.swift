import Hummingbird
import Logging

/// A service's composition root as the generic ``ServeCommand`` runs it, in this order:
/// configuration → storage → stores, runners and workers (``assemble(_:storage:logger:)``) → router and background
/// work (``makeApplication(logger:)``) → run until SIGTERM or SIGINT → ``shutdown()``.
///
/// Messaging implements the first two steps for every service on `ServiceStorage` (`ServableService+Storage.swift`),
/// and this file for a service without storage (`Storage == Void`, the gateway), so a service conforms with its
/// `assemble` and its application:
/// ```swift
/// extension AuthServer: ServableService {
///     public typealias Configuration = AuthConfiguration
///     public typealias Storage = ServiceStorage
///     public func makeApplication(logger: Logger) throws -> ServiceApplication { try application(logger: logger) }
/// }
/// ```
public protocol ServableService: Sendable {
    /// The service's configuration, read once at start-up.
    associatedtype Configuration: Sendable
    /// What the service is assembled over (its opened event store and databases); `Void` for none.
    associatedtype Storage: Sendable
    /// What ``makeApplication(logger:)`` builds: ServiceKit's ``ServiceApplication`` unless the service brings its own.
    associatedtype ServedApplication: ApplicationProtocol = ServiceApplication

    /// The abstract `serve --help` shows; "Run the service (the default)." unless the service words it.
    static var serveAbstract: String { get }

    /// Reads the configuration from `environment`.
    static func configuration(from environment: [String: String]) throws -> Configuration

    /// Bootstraps logging from `configuration`, then runs `body` with the storage open (and, where the storage runs
    /// connection pools, running) for as long as `body` runs.
    static func withStorage<T: Sendable>(_ configuration: Configuration,
                                         _ body: @Sendable (Storage, Logger) async throws -> T) async throws -> T

    /// Builds the service's stores, read-model runners and workers over opened storage.
    static func assemble(_ configuration: Configuration, storage: Storage, logger: Logger) async throws -> Self

    /// The HTTP application: the router with the service's routes, and its background work.
    func makeApplication(logger: Logger) throws -> ServedApplication

    /// Releases what ``assemble(_:storage:logger:)`` acquired and the application does not stop (e.g. worker threads),
    /// after the application has shut down.
    func shutdown() async
}

extension ServableService {
    /// "Run the service (the default)."
    public static var serveAbstract: String { "Run the service (the default)." }

    /// Nothing to release.
    public func shutdown() async {}
}

/// A service's configuration as the generic `serve` command reads it: ServiceKit's HTTP settings (logging included),
/// read from the environment. Messaging's `StoredServiceConfiguration` adds the runtime settings storage opens with.
public protocol ServableConfiguration: Sendable {
    /// Host, port, limits, token settings, log format.
    var service: ServiceConfiguration { get }
    /// Reads the configuration from `environment`.
    static func fromEnvironment(_ environment: [String: String]) throws -> Self
}

extension ServableService where Configuration: ServableConfiguration {
    /// `Configuration.fromEnvironment(environment)`.
    public static func configuration(from environment: [String: String]) throws -> Configuration {
        try Configuration.fromEnvironment(environment)
    }
}

extension ServableService where Configuration: ServableConfiguration, Storage == Void {
    /// No storage step: logging from the configuration, then `body` with the application logger.
    public static func withStorage<T: Sendable>(_ configuration: Configuration,
                                                _ body: @Sendable ((), Logger) async throws -> T) async throws -> T {
        ServiceLogging.bootstrap(configuration.service)
        return try await body((), ServiceLogging.makeLogger(configuration.service))
    }
}
