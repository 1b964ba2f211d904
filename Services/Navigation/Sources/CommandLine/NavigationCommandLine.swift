import ArgumentParser
import Foundation
import Logging
import Messaging
import ServiceKit

/// `navigation` — the executable: `serve` (default).
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
public struct NavigationCommandLine: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "navigation",
        abstract: "Waypoint's navigation service: ranked bike routes, turn-by-turn sessions, tour stop triggers, places.",
        subcommands: [ServeCommand<NavigationServer>.self],
        defaultSubcommand: ServeCommand<NavigationServer>.self)

    /// Creates it.
    public init() {}
}

/// `navigation serve` (``ServeCommand``): the HTTP service and its background work until SIGTERM or SIGINT.
extension NavigationServer: ServableService {
    public typealias Configuration = NavigationConfiguration
    public typealias Storage = ServiceStorage

    /// ``assemble(_:storage:roads:now:logger:)`` with the configured extracts.
    public static func assemble(_ configuration: NavigationConfiguration, storage: ServiceStorage, logger: Logger) async throws
        -> NavigationServer {
        try await assemble(configuration, storage: storage, roads: nil, logger: logger)
    }

    /// ``application(metrics:keySource:logger:onServerRunning:)`` with the shared metrics and `auth`'s JWKS.
    public func makeApplication(logger: Logger) throws -> ServiceApplication {
        try application(logger: logger)
    }
}

extension NavigationConfiguration: StoredServiceConfiguration {}
