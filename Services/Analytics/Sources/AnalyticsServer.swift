import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceLifecycle

/// The assembled `analytics` service: consumers of every topic (auth, tours, paths, navigation, trips) projecting into
/// the analytics tables, and the statistics API over them. It owns no commands and no log of
/// its own: everything it holds can be rebuilt from the topics (``AnalyticsRebuild``).
public struct AnalyticsServer: Sendable {
    public let configuration: AnalyticsConfiguration
    public let storage: ServiceStorage
    public let database: AnalyticsDatabase
    /// The live generation of the analytics tables (1 until the first rebuild).
    public let generation: Int
    /// Sessions auth revoked (`waypoint.auth`): their access tokens are refused here too.
    public let revokedSessions: RevokedSessionsFeed

    /// Prepares the database (meta table, live tables, SQLite page cache) over opened storage.
    public static func assemble(_ configuration: AnalyticsConfiguration, storage: ServiceStorage,
                                logger: Logger = Logger(label: "waypoint.analytics")) async throws -> AnalyticsServer {
        let database = AnalyticsDatabase(storage)
        try await database.tune()
        let generation = try await database.prepareLive()
        logger.info("analytics tables ready", metadata: ["generation": "\(generation)"])
        let revokedSessions = try await storage.revokedSessions(producerURL: configuration.producerURL(.auth),
                                                                internalToken: configuration.service.internalToken, logger: logger)
        return AnalyticsServer(configuration: configuration, storage: storage, database: database, generation: generation,
                               revokedSessions: revokedSessions)
    }

    /// The live consumers of the configured topics (run them as the application's background services).
    public func consumers(metrics: ServiceMetrics = .shared, logger: Logger) throws -> [AnalyticsConsumer] {
        try AnalyticsConsumers.live(configuration, storage: storage, generation: generation, metrics: metrics, logger: logger)
    }

    /// The queries behind the API.
    public var queries: AnalyticsQueries { AnalyticsQueries(database: database) }

    /// The HTTP application with the consumers in the background; each consumer is a readiness check
    /// (`consumer.analytics_<topic>`: poison event, start-up catch-up, lag bound). Access tokens are verified against
    /// `auth`'s JWKS (`WAYPOINT_JWKS_URL`) unless `keySource` is given (tests).
    public func application(consumers: [AnalyticsConsumer]? = nil, metrics: ServiceMetrics = .shared,
                            keySource: (any AccessTokenKeySource)? = nil, logger: Logger? = nil,
                            now: @escaping @Sendable () -> Date = Date.init,
                            onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) throws -> ServiceApplication {
        let logger = logger ?? ServiceLogging.makeLogger(configuration.service)
        let consumers = try consumers ?? self.consumers(metrics: metrics, logger: logger)
        let readiness = Readiness()
        for consumer in consumers { consumer.register(with: readiness) }
        readiness.register(revokedSessions.consumer)
        let routes = AnalyticsRoutes(queries: queries, now: now)
        return try ServiceApplication(
            configuration: configuration.service, readiness: readiness, metrics: metrics, keySource: keySource,
            revokedSessions: revokedSessions.registry, openAPI: try OpenAPIDocument.bundled(in: .module, service: "analytics"),
            background: consumers.map(\.runner) + [revokedSessions.consumer], logger: logger,
            onServerRunning: onServerRunning
        ) { router in
            routes.addRoutes(to: router)
        }
    }
}
