import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import NIOCore
import RecordTripAnalysis
import RoadNetwork
import ServiceKit
import ServiceLifecycle

/// The assembled `record-trip` service: trips recorded in chunks or imported, analysed after finish off the request path
/// (cleaning, statistics, map matching on its own road network, obstacle candidates), reviewed by their rider, published without the rider on
/// `waypoint.trips`; `UserErased` from `waypoint.auth` destroys the rider's key and their trips.
public struct RecordTripServer: Sendable {
    public let configuration: RecordTripConfiguration
    public let storage: ServiceStorage
    public let stores: RecordTripStores
    /// The road network the matcher runs on (loaded at start, cached in the data directory).
    public let network: LoadedRoadNetwork
    public let commands: TripCommands
    public let reviews: TripReviews
    public let reads: TripReads
    /// Where finished trips are analysed, off the request path.
    public let analyses: TripAnalysisQueue
    /// The `trips` read model, prepared before anything is served.
    public let trips: any ProjectionRunning
    /// The `waypoint.auth` consumer (erasures, revoked sessions).
    public let erasedRiders: any ConsumerService
    public let revokedSessions: RevokedSessionsFeed

    /// Builds the service over opened storage. `roads` (tests, one for every service they build) skips loading the
    /// configured extracts; `weather` is
    /// the provider of the weather at a ride's start (`nil`: none — the composition root of the platform passes the
    /// Open-Meteo adapter when `WAYPOINT_RECORD_TRIP_WEATHER_URL` is set).
    public static func assemble(_ configuration: RecordTripConfiguration, storage: ServiceStorage, roads: RecordTripRoads? = nil,
                                weather: (any WeatherProvider)? = nil, now: @escaping @Sendable () -> Date = Date.init,
                                logger: Logger = Logger(label: "waypoint.record-trip")) async throws -> RecordTripServer {
        let stores = try await RecordTripStores.open(storage)
        let roads = try roads ?? RecordTripRoads(network: RoadNetworkExtracts.load(configuration.extracts, cacheDirectory: configuration.roadCacheDirectory, logger: logger))
        let commands = TripCommands(store: AnyEventStore(storage.store), keys: storage.personalDataKeys, analyzer: TripAnalyzer(matcher: roads.matcher),
                                    weather: weather, weatherTimeout: configuration.weatherTimeout, now: now)
        let trips = storage.projection(sqlite: SQLiteTripsProjection(), postgres: PostgresTripsProjection(), logger: logger)
        try await trips.prepare()
        let erasedRiders = try storage.consuming(.auth, producerURL: configuration.authURL, internalToken: configuration.service.internalToken,
                                                 sqlite: SQLiteErasedUsersHandler(.erasedRiders), postgres: PostgresErasedUsersHandler(.erasedRiders), logger: logger)
        let revokedSessions = try await storage.revokedSessions(producerURL: configuration.authURL,
                                                                internalToken: configuration.service.internalToken, logger: logger)
        return RecordTripServer(configuration: configuration, storage: storage, stores: stores, network: roads.network, commands: commands,
                                reviews: TripReviews(commands: commands, nodes: roads.nodes), reads: TripReads(commands: commands, store: stores.trips),
                                analyses: TripAnalysisQueue(commands: commands, logger: logger), trips: trips, erasedRiders: erasedRiders,
                                revokedSessions: revokedSessions)
    }

    /// The HTTP application: the trip routes, the embedded feed; on Kafka the relay to `waypoint.trips`; the `trips`
    /// read model, the `waypoint.auth` consumers, the erasure and weather workers in the background.
    public func application(metrics: ServiceMetrics = .shared, keySource: (any AccessTokenKeySource)? = nil, logger: Logger? = nil,
                            onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) throws -> ServiceApplication {
        let logger = logger ?? ServiceLogging.makeLogger(configuration.service)
        let readiness = Readiness()
        readiness.register(trips)
        readiness.register(erasedRiders)
        readiness.register(revokedSessions.consumer)
        let erasure = RiderErasureWorker(commands: commands, reads: stores.trips, store: stores.erasures, trips: trips,
                                         checkpoints: storage.checkpoints, logger: logger)
        let weather = WeatherBackfillWorker(commands: commands, reads: stores.trips, trips: trips,
                                            interval: configuration.weatherBackfillInterval, logger: logger)
        let analysis = TripAnalysisWorker(queue: analyses, reads: stores.trips, trips: trips, logger: logger)
        let routes = TripRoutes(commands: commands, reviews: reviews, reads: reads, analyses: analyses, finishWait: configuration.finishWait)
        let storage = storage
        return try ServiceApplication(
            configuration: configuration.service, readiness: readiness, metrics: metrics, keySource: keySource,
            revokedSessions: revokedSessions.registry, openAPI: try OpenAPIDocument.bundled(in: .module, service: "record-trip"),
            bodyLimitOverrides: TripRoutes.bodyLimits(commands.limits),
            background: try storage.publishing(topic: Topic.trips.name, include: RecordTripEvents.isPublished, logger: logger)
                + [trips, erasedRiders, revokedSessions.consumer, erasure, weather, analysis],
            logger: logger, onServerRunning: onServerRunning
        ) { router in
            routes.addRoutes(to: router)
            storage.addFeedRoutes(to: router, include: RecordTripEvents.isPublished)
        }
    }
}

/// What record-trip publishes on `waypoint.trips` (relay and embedded feed): exactly the published language in
/// `Shared/Contracts/Trips`; samples, analyses and reviews stay in the service's log.
public enum RecordTripEvents {
    public static let publishedTypes: Set<String> = [TripFinished.eventType, TripDeleted.eventType, ObstacleConfirmed.eventType,
                                                     RideSubmittedAsPathDraft.eventType]

    /// Whether the envelope goes to `waypoint.trips`.
    public static func isPublished(_ envelope: EventEnvelope) -> Bool { publishedTypes.contains(envelope.eventType) }
}
