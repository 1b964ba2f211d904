import ArgumentParser
import Foundation
import Logging
import Messaging
import ServiceKit

/// `path-review` — the executable: `serve` (default).
@available(macOS 10.15, macCatalyst 13, iOS 13, tvOS 13, watchOS 6, *)
public struct PathReviewCommandLine: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "path-review",
        abstract: "Waypoint's community path service: streets, path drafts, review, the approved path network.",
        subcommands: [ServeCommand<PathReviewServer>.self],
        defaultSubcommand: ServeCommand<PathReviewServer>.self)

    /// Creates it.
    public init() {}
}

/// `path-review serve` (``ServeCommand``): the HTTP service and its background work until SIGTERM or SIGINT.
extension PathReviewServer: ServableService {
    public typealias Configuration = PathReviewConfiguration
    public typealias Storage = ServiceStorage

    /// ``assemble(_:storage:roads:logger:)`` with the configured extracts.
    public static func assemble(_ configuration: PathReviewConfiguration, storage: ServiceStorage, logger: Logger) async throws
        -> PathReviewServer {
        try await assemble(configuration, storage: storage, roads: nil, logger: logger)
    }

    /// ``application(metrics:keySource:logger:onServerRunning:)`` with the shared metrics and `auth`'s JWKS.
    public func makeApplication(logger: Logger) throws -> ServiceApplication {
        try application(logger: logger)
    }
}

extension PathReviewConfiguration: StoredServiceConfiguration {}
