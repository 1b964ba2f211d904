import Logging

/// A service's composition root as the generic ``ServeCommand`` runs it, in this order:
/// configuration → storage → stores, runners and workers (``assemble(_:storage:logger:)``) → router and background
/// work (``makeApplication(logger:)``) → run until SIGTERM or SIGINT → ``shutdown()``.
///
/// Messaging implements the first two steps for every service on `ServiceStorage` (`ServableService+Storage.swift`),
/// so a service conforms with its `assemble` and its application:
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
    /// What the service is assembled over (its opened event store and databases).
    associatedtype Storage: Sendable

    /// Reads the configuration from `environment`.
    static func configuration(from environment: [String: String]) throws -> Configuration

    /// Bootstraps logging from `configuration`, then runs `body` with the storage open (and, where the storage runs
    /// connection pools, running) for as long as `body` runs.
    static func withStorage<T: Sendable>(_ configuration: Configuration,
                                         _ body: @Sendable (Storage, Logger) async throws -> T) async throws -> T

    /// Builds the service's stores, read-model runners and workers over opened storage.
    static func assemble(_ configuration: Configuration, storage: Storage, logger: Logger) async throws -> Self

    /// The HTTP application: the router with the service's routes, and its background work.
    func makeApplication(logger: Logger) throws -> ServiceApplication

    /// Releases what ``assemble(_:storage:logger:)`` acquired and the application does not stop (e.g. worker threads),
    /// after the application has shut down.
    func shutdown() async
}

extension ServableService {
    /// Nothing to release.
    public func shutdown() async {}
}
