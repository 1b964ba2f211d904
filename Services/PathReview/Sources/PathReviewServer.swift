import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import NIOCore
import RoadNetwork
import ServiceKit
import ServiceLifecycle

/// The assembled `path-review` service: the streets of its own road network (`/v1/streets`), the cyclists' private path
/// drafts (`/v1/paths/drafts`, the `path_drafts` read model) and their review (`/v1/paths/review-queue`, the
/// `review_queue` read model), the approved network (`/v1/paths`, `approved_paths`) and its upkeep; drafts from rides
/// (`waypoint.trips`), erasures (`waypoint.auth`); relays to `waypoint.paths` and `waypoint.notifications`.
public struct PathReviewServer: Sendable {
    public let configuration: PathReviewConfiguration
    public let storage: ServiceStorage
    /// The road network, its router and its streets (loaded at start, cached in the data directory).
    public let roads: PathReviewRoads
    public let stores: PathReviewStores
    public let drafts: PathDrafts
    /// The `path_drafts` read model, prepared before anything is served.
    public let draftList: any ProjectionRunning
    /// The `review_queue` read model, likewise.
    public let reviewQueue: any ProjectionRunning
    /// Drafts from rides (`RideSubmittedAsPathDraft`), on the service's network.
    public let rides: RideDrafts
    /// The `waypoint.trips` consumer (rides sent as drafts); `nil` on the embedded transport when no record-trip URL
    /// (`WAYPOINT_RECORD_TRIP_URL`) is configured.
    public let rideSubmissions: (any ConsumerService)?
    /// The `approved_paths` read model (the approved network), likewise.
    public let approvedNetwork: any ProjectionRunning
    /// Reads of the approved network for upkeep (ride sightings, fading).
    public let networkLookup: any ApprovedNetworkLookup
    /// Reads of single approved paths (`GET /v1/paths/{id}`).
    public let networkReads: any ApprovedNetworkReads
    /// Streets' compatibility now (the catalogue with approved paths and moderators' marks).
    public let streetStatus: StreetStatus
    /// The `waypoint.auth` consumer (erased authors).
    public let erasedAuthors: any ConsumerService
    /// Sessions auth revoked (`waypoint.auth`): their tokens are refused before they expire.
    public let revokedSessions: RevokedSessionsFeed
    /// Carries out the erasures the consumer recorded.
    public let authorErasure: AuthorErasureWorker
    /// Tells authors of review outcomes (`waypoint.notifications`, ``PathNotificationRules``).
    public let notifier: UserNotifier

    /// Builds the service over opened storage. `roads` (tests, one for every service they build) skips loading the
    /// configured extracts.
    public static func assemble(_ configuration: PathReviewConfiguration, storage: ServiceStorage, roads: PathReviewRoads? = nil,
                                now: @escaping @Sendable () -> Date = Date.init,
                                logger: Logger = Logger(label: "waypoint.path-review")) async throws -> PathReviewServer {
        let roads = try roads ?? PathReviewRoads(network: RoadNetworkExtracts.load(configuration.extracts, cacheDirectory: configuration.roadCacheDirectory, logger: logger))
        logger.info("streets indexed", metadata: ["streets": "\(roads.streets.index.streets.count)"])
        let stores = PathReviewStores.open(storage)
        let draftList = storage.projection(sqlite: SQLitePathDraftsProjection(), postgres: PostgresPathDraftsProjection(), logger: logger)
        let reviewQueue = storage.projection(sqlite: SQLiteReviewQueueProjection(), postgres: PostgresReviewQueueProjection(), logger: logger)
        try await draftList.prepare()
        try await reviewQueue.prepare()
        let approvedNetwork = storage.projection(sqlite: SQLiteApprovedNetworkProjection(), postgres: PostgresApprovedNetworkProjection(), logger: logger)
        try await approvedNetwork.prepare()
        let networkStore: any ApprovedNetworkLookup & ApprovedNetworkReads & StreetOverlayReads = storage.backend(
            sqlite: { SQLiteApprovedNetworkStore(database: $0) }, postgres: { PostgresApprovedNetworkStore(database: $0) })
        let networkLookup: any ApprovedNetworkLookup = networkStore
        let streetStatus = StreetStatus(catalog: roads.streets, overlay: networkStore)
        let drafts = PathDrafts(store: AnyEventStore(storage.store), reads: stores.drafts, queue: stores.queue,
                                claimDuration: configuration.claimDuration, now: now)
        let rides = RideDrafts(drafts: drafts, resolver: RideDraftResolver(roads: roads), logger: logger)
        let recordTripURL = configuration.endpoints.baseURL(of: "record-trip")
        let rideSubmissions = storage.settings.kafkaBrokers == nil && recordTripURL == nil ? nil
            : try storage.consuming(.trips, producerURL: recordTripURL, internalToken: configuration.service.internalToken,
                                    sqlite: SQLiteRideSubmissionsHandler(), postgres: PostgresRideSubmissionsHandler(), logger: logger)
        let erasedAuthors = try storage.consuming(.auth, producerURL: configuration.authURL, internalToken: configuration.service.internalToken,
                                                  sqlite: SQLiteErasedUsersHandler(.erasedAuthors), postgres: PostgresErasedUsersHandler(.erasedAuthors),
                                                  logger: logger)
        let revokedSessions = try await storage.revokedSessions(producerURL: configuration.authURL,
                                                                internalToken: configuration.service.internalToken, logger: logger)
        let erasures: any ErasedUsersStore = storage.backend(sqlite: { SQLiteErasedUsersStore(database: $0, tables: .erasedAuthors) },
                                                             postgres: { PostgresErasedUsersStore(database: $0, tables: .erasedAuthors) })
        let authorErasure = AuthorErasureWorker(drafts: drafts, store: erasures, draftList: draftList, checkpoints: storage.checkpoints, logger: logger)
        let notifier = storage.userNotifier(rules: PathNotificationRules.notification(for:), triggers: PathNotificationRules.notifierTriggers, logger: logger)
        return PathReviewServer(configuration: configuration, storage: storage, roads: roads, stores: stores, drafts: drafts,
                                draftList: draftList, reviewQueue: reviewQueue, rides: rides, rideSubmissions: rideSubmissions,
                                approvedNetwork: approvedNetwork, networkLookup: networkLookup, networkReads: networkStore, streetStatus: streetStatus,
                                erasedAuthors: erasedAuthors, revokedSessions: revokedSessions, authorErasure: authorErasure, notifier: notifier)
    }

    /// The HTTP application: the street and draft routes and the embedded feed; on Kafka the relay to `waypoint.paths`;
    /// the `path_drafts` read model in the background.
    public func application(metrics: ServiceMetrics = .shared, keySource: (any AccessTokenKeySource)? = nil, logger: Logger? = nil,
                            onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) throws -> ServiceApplication {
        let logger = logger ?? ServiceLogging.makeLogger(configuration.service)
        let readiness = Readiness()
        readiness.register(draftList)
        readiness.register(reviewQueue)
        let rideWorkers: [any Service] = rideSubmissions.map {
            readiness.register($0)
            let stored = RideSubmissionStores.open(self.storage)
            return [$0, RideDraftWorker(rides: rides, store: stored, logger: logger),
                    RideSightingWorker(drafts: drafts, lookup: networkLookup, store: stored, network: approvedNetwork, logger: logger)]
        } ?? []
        readiness.register(approvedNetwork)
        readiness.register(notifier)
        readiness.register(erasedAuthors)
        readiness.register(revokedSessions.consumer)
        let streets = StreetRoutes(catalog: roads.streets, status: streetStatus, store: AnyEventStore(storage.store), now: drafts.now)
        let draftRoutes = PathDraftRoutes(drafts: drafts, planner: PathDraftPlanner(roads: roads), status: streetStatus)
        let storage = storage
        return try ServiceApplication(
            configuration: configuration.service, readiness: readiness, metrics: metrics, keySource: keySource,
            revokedSessions: revokedSessions.registry, openAPI: try OpenAPIDocument.bundled(in: .module, service: "path-review"),
            background: try storage.publishing(PathReviewEvents.topics, logger: logger)
                + [draftList, reviewQueue, approvedNetwork, notifier, erasedAuthors, authorErasure, revokedSessions.consumer] + rideWorkers
                + [ObstacleFadeSweep(drafts: drafts, lookup: networkLookup, fadeDays: configuration.obstacleFadeDays, logger: logger)],
            logger: logger, onServerRunning: onServerRunning
        ) { router in
            streets.addRoutes(to: router)
            draftRoutes.addRoutes(to: router)
            ReviewRoutes(drafts: drafts).addRoutes(to: router)
            UpkeepRoutes(drafts: drafts, planner: PathDraftPlanner(roads: roads)).addRoutes(to: router)
            ApprovedPathRoutes(reads: networkReads, lookup: networkLookup, featureCacheBytes: configuration.featureCacheMegabytes << 20)
                .addRoutes(to: router)
            storage.addFeedRoutes(to: router, include: PathReviewEvents.isServedByFeed)
        }
    }
}

/// What path-review publishes on `waypoint.paths` (relay and embedded feed): exactly the published language in
/// `Shared/Contracts/Paths`. Drafts, review steps and reports stay in the service's log (the queue's comings and goings
/// are published as their anonymous twins `PathReviewOpened` / `PathReviewClosed`); the authors' notifications go to
/// `waypoint.notifications`.
public enum PathReviewEvents {
    public static let publishedTypes: Set<String> = [
        PathApproved.eventType, PathStatusChanged.eventType, PathObstacleConfirmed.eventType, PathObstacleResolved.eventType,
        PathRetired.eventType, StreetCompatibilityChanged.eventType, PathReviewOpened.eventType, PathReviewClosed.eventType,
    ]

    /// Whether the envelope goes to `waypoint.paths`.
    public static func isPublished(_ envelope: EventEnvelope) -> Bool { publishedTypes.contains(envelope.eventType) }

    /// What the embedded feed serves: `waypoint.paths`' events and the authors' notifications (consumers keep the
    /// types they know; the gateway's push stream keeps only `UserNotified`).
    public static func isServedByFeed(_ envelope: EventEnvelope) -> Bool { isPublished(envelope) || UserNotifications.isNotification(envelope) }

    /// The relays on Kafka: the published language to `waypoint.paths`, review outcomes to `waypoint.notifications`.
    public static let topics = [PublishedTopic(Topic.paths.name, include: isPublished),
                                PublishedTopic(Topic.notifications.name, include: UserNotifications.isNotification)]
}
