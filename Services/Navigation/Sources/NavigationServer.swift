import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import NIOCore
import RoadNetwork
import ServiceKit
import ServiceLifecycle

/// The assembled `navigation` service: route search on its own road network under the community layer
/// (`/v1/routes`, the `waypoint.paths` consumer and ``CommunityOverlay``), turn-by-turn sessions
/// (`/v1/navigation/sessions`, pushed guidance); relays to `waypoint.navigation` and `waypoint.notifications`.
public struct NavigationServer: Sendable {
    public let configuration: NavigationConfiguration
    public let storage: ServiceStorage
    /// The road network, its router and guide (loaded at start, cached in the data directory).
    public let roads: NavigationRoads
    /// The `waypoint.paths` consumer: approved paths, conditions, obstacles and marked streets into the community tables.
    public let community: any ConsumerService
    /// The community layer this instance routes with, refreshed from those tables.
    public let overlay: CommunityOverlay
    /// Route search.
    public let planner: RoutePlanner
    /// Sessions auth revoked (`waypoint.auth`): their tokens are refused before they expire.
    public let revokedSessions: RevokedSessionsFeed
    /// Navigation sessions (turn-by-turn guidance).
    public let sessions: NavigationSessions
    /// The `navigation_sessions` read model (each rider's current session).
    public let sessionList: any ProjectionRunning
    /// Pushes every instruction and reroute on the rider's stream (`waypoint.notifications`).
    public let notifier: UserNotifier
    /// The `waypoint.tours` consumer: published tours' stops and who owns which tour (tour sessions).
    public let tourCatalog: any ConsumerService
    /// Places: favourites and recent locations of signed-in travellers (`/v1/places`), sealed with their keys.
    public let places: NavigationPlaces
    /// The `waypoint.auth` consumer of erased users (`erased_travellers`).
    public let erasedTravellers: any ConsumerService
    /// Carries out the erasures the consumer recorded: the traveller's key, then each feature's step (places).
    public let travellerErasure: TravellerErasureWorker

    /// Builds the service over opened storage. `roads` (tests, one for every service they build) skips loading the
    /// configured extracts.
    public static func assemble(_ configuration: NavigationConfiguration, storage: ServiceStorage, roads: NavigationRoads? = nil,
                                now: @escaping @Sendable () -> Date = Date.init,
                                logger: Logger = Logger(label: "waypoint.navigation")) async throws -> NavigationServer {
        let roads = try roads ?? NavigationRoads(network: RoadNetworkExtracts.load(configuration.extracts, cacheDirectory: configuration.roadCacheDirectory, logger: logger))
        let community = try storage.consuming(.paths, producerURL: configuration.pathReviewURL, internalToken: configuration.service.internalToken,
                                              sqlite: SQLiteCommunityHandler(), postgres: PostgresCommunityHandler(), logger: logger)
        let communityStore: any CommunityStore = storage.backend(sqlite: { SQLiteCommunityStore(database: $0) },
                                                                 postgres: { PostgresCommunityStore(database: $0) })
        let overlay = CommunityOverlay(store: communityStore, router: roads.router, interval: configuration.overlayRefresh, logger: logger)
        let revokedSessions = try await storage.revokedSessions(producerURL: configuration.authURL,
                                                                internalToken: configuration.service.internalToken, logger: logger)
        let planner = RoutePlanner(roads: roads, overlay: overlay, snapRadius: configuration.snapRadius)
        let sessionList = storage.projection(sqlite: SQLiteSessionListProjection(), postgres: PostgresSessionListProjection(), logger: logger)
        try await sessionList.prepare()
        let notifier = storage.userNotifier(rules: SessionNotificationRules.notification(for:), triggers: SessionNotificationRules.notifierTriggers, logger: logger)
        let tourCatalog = try storage.consuming(.tours, producerURL: configuration.tourManagementURL,
                                                internalToken: configuration.service.internalToken,
                                                sqlite: SQLiteTourCatalogHandler(), postgres: PostgresTourCatalogHandler(), logger: logger)
        let placesModel = storage.projection(sqlite: SQLitePlacesProjection(), postgres: PostgresPlacesProjection(), logger: logger)
        try await placesModel.prepare()
        let places = NavigationPlaces(store: AnyEventStore(storage.store), keys: storage.personalDataKeys, reads: PlacesStores.open(storage),
                                      readModel: placesModel, now: now)
        let erasedTravellers = try storage.consuming(.auth, producerURL: configuration.authURL, internalToken: configuration.service.internalToken,
                                                     sqlite: SQLiteErasedUsersHandler(.erasedTravellers), postgres: PostgresErasedUsersHandler(.erasedTravellers),
                                                     logger: logger)
        let erasures: any ErasedUsersStore = storage.backend(sqlite: { SQLiteErasedUsersStore(database: $0, tables: .erasedTravellers) },
                                                             postgres: { PostgresErasedUsersStore(database: $0, tables: .erasedTravellers) })
        let travellerErasure = TravellerErasureWorker(store: erasures, keys: storage.personalDataKeys, steps: [places.erasureStep], logger: logger)
        return NavigationServer(configuration: configuration, storage: storage, roads: roads, community: community, overlay: overlay,
                                planner: planner, revokedSessions: revokedSessions,
                                sessions: NavigationSessions(store: AnyEventStore(storage.store), planner: planner, now: now, logger: logger),
                                sessionList: sessionList, notifier: notifier, tourCatalog: tourCatalog,
                                places: places, erasedTravellers: erasedTravellers, travellerErasure: travellerErasure)
    }

    /// The HTTP application: the route search, the embedded feed; the community consumer and layer in the background;
    /// on Kafka the relays.
    public func application(metrics: ServiceMetrics = .shared, keySource: (any AccessTokenKeySource)? = nil, logger: Logger? = nil,
                            onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) throws -> ServiceApplication {
        let logger = logger ?? ServiceLogging.makeLogger(configuration.service)
        let readiness = Readiness()
        readiness.register(community)
        readiness.register(overlay)
        readiness.register(revokedSessions.consumer)
        readiness.register(sessionList)
        readiness.register(notifier)
        readiness.register(tourCatalog)
        readiness.register(places.readModel)
        readiness.register(erasedTravellers)
        let storage = storage
        let search = RouteSearchRoutes(planner: planner)
        let sessionRoutes = SessionRoutes(sessions: sessions, list: storage.backend(sqlite: { SQLiteSessionListStore(database: $0) },
                                                                                  postgres: { PostgresSessionListStore(database: $0) }),
                                          tours: storage.backend(sqlite: { SQLiteTourCatalogStore(database: $0) },
                                                                 postgres: { PostgresTourCatalogStore(database: $0) }),
                                          places: places)
        let placesRoutes = PlacesRoutes(places: places)
        let cards = RouteCards(planner: planner, places: places, tours: storage.backend(sqlite: { SQLiteTourCatalogStore(database: $0) },
                                                                                      postgres: { PostgresTourCatalogStore(database: $0) }))
        return try ServiceApplication(
            configuration: configuration.service, readiness: readiness, metrics: metrics, keySource: keySource,
            revokedSessions: revokedSessions.registry, openAPI: try OpenAPIDocument.bundled(in: .module, service: "navigation"),
            bodyLimitOverrides: PlacesRoutes.bodyLimits,
            background: try storage.publishing(NavigationEvents.topics, logger: logger)
                + [community, overlay, revokedSessions.consumer, sessionList, notifier, tourCatalog]
                + [places.readModel, erasedTravellers, travellerErasure],
            logger: logger, onServerRunning: onServerRunning
        ) { router in
            search.addRoutes(to: router)
            sessionRoutes.addRoutes(to: router)
            placesRoutes.addRoutes(to: router)
            cards.addRoutes(to: router)
            storage.addFeedRoutes(to: router, include: NavigationEvents.isServedByFeed)
        }
    }
}

/// What navigation publishes: its published language on `waypoint.navigation` (`Shared/Contracts/Navigation`) and
/// riders' pushed guidance on `waypoint.notifications`. Positions never leave the service.
public enum NavigationEvents {
    /// The event types of `waypoint.navigation`.
    public static let publishedTypes: Set<String> = [
        NavigationSessionStarted.eventType, NavigationRerouted.eventType, NavigationArrived.eventType, NavigationSessionEnded.eventType,
        TourStopReached.eventType,
    ]

    /// Whether the envelope goes to `waypoint.navigation`.
    public static func isPublished(_ envelope: EventEnvelope) -> Bool { publishedTypes.contains(envelope.eventType) }

    /// What the embedded feed serves: the published language and the riders' notifications.
    public static func isServedByFeed(_ envelope: EventEnvelope) -> Bool { isPublished(envelope) || UserNotifications.isNotification(envelope) }

    /// The relays on Kafka.
    public static let topics = [PublishedTopic(Topic.navigation.name, include: isPublished),
                                PublishedTopic(Topic.notifications.name, include: UserNotifications.isNotification)]
}
