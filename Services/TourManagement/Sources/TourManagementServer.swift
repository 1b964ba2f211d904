import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceLifecycle

/// The assembled `tour-management` service: destinations (gazetteer import, search, popular, nearest), media, tour
/// authoring, the guide dashboard, public discovery, and the `waypoint.auth` consumer behind guide names.
public struct TourManagementServer: Sendable {
    public let configuration: TourManagementConfiguration
    public let storage: ServiceStorage
    /// The service's own stores on the configured backend (migrated).
    public let stores: TourManagementStores
    public let destinations: any DestinationStore
    public let index: DestinationIndex
    public let media: MediaStore
    /// Signs offline bundle manifests.
    public let bundleKey: BundleSigningKey
    /// The read models over the service's own log, prepared (tables exist) before anything is served.
    public let readModels: TourReadModels
    /// Purchases, payments, entitlements, exchange rates.
    public let commerce: Commerce
    /// Sessions auth revoked (`waypoint.auth`): their access tokens are refused here too.
    public let revokedSessions: RevokedSessionsFeed

    /// Builds the service over opened storage: imports the gazetteer when the destinations table is empty, then builds
    /// the in-memory index from the table.
    public static func assemble(_ configuration: TourManagementConfiguration, storage: ServiceStorage,
                                logger: Logger = Logger(label: "waypoint.tour-management")) async throws -> TourManagementServer {
        let stores = try await TourManagementStores.open(storage)
        let destinations = stores.destinations
        _ = try await destinations.importIfEmpty(logger: logger)
        let index = DestinationIndex(cities: try await destinations.loadAll())
        let media = try MediaStore.open(stores)
        let bundleKey = try await BundleSigningKey.load(stores.bundleSigningKeys)
        let readModels = try await TourReadModels.prepare(storage, logger: logger)
        let commerce = try await Commerce.open(configuration.commerce, stores: stores, logger: logger)
        let revokedSessions = try await storage.revokedSessions(producerURL: configuration.authURL,
                                                                internalToken: configuration.service.internalToken, logger: logger)
        return TourManagementServer(configuration: configuration, storage: storage, stores: stores, destinations: destinations, index: index, media: media,
                                    bundleKey: bundleKey, readModels: readModels, commerce: commerce, revokedSessions: revokedSessions)
    }

    /// The destination store of opened storage (migrated first), for one-shot commands such as the gazetteer import.
    static func destinationStore(_ storage: ServiceStorage) async throws -> any DestinationStore {
        try await TourManagementStores.open(storage).destinations
    }

    /// The HTTP application: destinations, media, tour authoring, discovery, the embedded feed; on Kafka the relays to
    /// `waypoint.tours` and `waypoint.notifications`; the user notifier; read models, the `waypoint.auth` consumer and scheduled work in the background.
    /// Access tokens are verified against `auth`'s JWKS (`WAYPOINT_JWKS_URL`) unless `keySource` is given (tests).
    public func application(metrics: ServiceMetrics = .shared, keySource: (any AccessTokenKeySource)? = nil, logger: Logger? = nil,
                            now: @escaping @Sendable () -> Date = Date.init,
                            onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) throws -> ServiceApplication {
        let logger = logger ?? ServiceLogging.makeLogger(configuration.service)
        let index = index
        let storage = storage
        let media = media
        let authoring = TourAuthoring(store: AnyEventStore(storage.store), destinations: index, media: media, now: now)
        let mediaRoutes = MediaRoutes(store: media)
        let reads = GuideTours(store: stores.guideTours)
        let guideTours = readModels.guideTours, discovery = readModels.discovery, tourMedia = readModels.tourMedia
        let catalog = TourCatalog(store: stores.catalog)
        let store = AnyEventStore(storage.store)
        let access = TourAccess(entitlements: commerce.entitlements)
        let commerce = commerce
        let views = TourViewRecorder(store: store, logger: logger)
        let bundles = OfflineBundles(store: store, signingKey: bundleKey,
                                     directory: configuration.runtime.dataDirectory.appendingPathComponent("bundles", isDirectory: true),
                                     now: now, logger: logger)
        let bundleQueue = readModels.bundleQueue
        let bundlePublisher = BundlePublisher(bundles: bundles, catalog: catalog, queue: stores.bundleQueue,
                                              queueProjection: bundleQueue, discovery: discovery, logger: logger)
        let maintenance = TourMaintenance(authoring: authoring, reads: reads, index: index, catalog: catalog, after: guideTours,
                                          countedFrom: [guideTours, discovery], logger: logger)
        let (guideAccounts, guideProfiles) = try GuideProfiles.make(storage: storage, accounts: stores.guideAccounts, authURL: configuration.authURL,
                                                                    internalToken: configuration.service.internalToken, logger: logger)
        let reviews = ReviewCommands(storage: storage, stores: stores, now: now)
        let favourites = Favourites(store: store, catalog: catalog, now: now)
        let erasures = ErasureWorker(reviews: reviews, store: stores.erasures, after: [readModels.reviews], logger: logger)
        let notifier = storage.userNotifier(rules: UserNotificationRules.notification(for:), triggers: UserNotificationRules.notifierTriggers, logger: logger)
        let userNames: @Sendable ([UUID]) async -> [UUID: String] = { ids in await guideProfiles.publicGuides(ids).compactMapValues(\.name) }
        let readiness = Readiness()
        readiness.register(guideAccounts)
        for projection in readModels.all { readiness.register(projection) }
        readiness.register(notifier)
        readiness.register(revokedSessions.consumer)
        // Tour progress from navigation's tour sessions (`TourStopReached` on waypoint.navigation); on the embedded
        // transport only when navigation's URL is configured (the launcher sets it).
        let navigationURL = configuration.endpoints.baseURL(of: "navigation")
        let arrivals: [any Service] = try (storage.settings.kafkaBrokers == nil && navigationURL == nil) ? [] : {
            let consumer = try storage.consuming(.navigation, producerURL: navigationURL, internalToken: configuration.service.internalToken,
                                                 sqlite: SQLiteNavigationArrivalsHandler(), postgres: PostgresNavigationArrivalsHandler(), logger: logger)
            readiness.register(consumer)
            let arrivalStore: any NavigationArrivalStore = storage.backend(sqlite: { SQLiteNavigationArrivalStore(database: $0) },
                                                                           postgres: { PostgresNavigationArrivalStore(database: $0) })
            return [consumer, NavigationArrivalsWorker(store: arrivalStore, catalog: catalog, events: store, now: now, logger: logger)]
        }()
        return try ServiceApplication(
            configuration: configuration.service, readiness: readiness, metrics: metrics, keySource: keySource,
            revokedSessions: revokedSessions.registry, openAPI: try OpenAPIDocument.bundled(in: .module, service: "tour-management"),
            // Uploads stream up to the largest media limit; every other route keeps maxBodyBytes.
            bodyLimitOverrides: [BodyLimitOverride(method: .post, pathPrefix: "/v1/media", limit: MediaKind.largestMaximumBytes)],
            background: try storage.publishing(TourManagementEvents.topics, logger: logger)
                + readModels.all + [maintenance,
                   MediaGarbageCollector(store: media, after: tourMedia, logger: logger), bundlePublisher, guideAccounts, erasures, notifier, views,
                   revokedSessions.consumer] + arrivals,
            logger: logger, onServerRunning: onServerRunning
        ) { routes in
            // First, so that it wraps every route below: cache tags and log positions for the gateway's cache.
            routes.router.add(middleware: CatalogueCacheHeaders(discovery: discovery, destinations: index, store: store))
            DestinationRoutes(index: index).addRoutes(to: routes.group("/v1/destinations"))
            mediaRoutes.addPublic(to: routes.group("/v1/media"))
            mediaRoutes.addUploads(to: routes.authenticated("/v1/media", requiring: .guide, .admin))
            TourAuthoringRoutes(authoring: authoring, guideTours: reads).addRoutes(to: routes)
            ProgressRoutes(store: store, catalog: catalog, access: access, now: now).addRoutes(to: routes)
            BundleRoutes(bundles: bundles, catalog: catalog, access: access).addRoutes(to: routes)
            DiscoveryRoutes(catalog: catalog, destinations: index, access: access, views: views, exchangeRates: commerce.exchangeRates, now: now,
                            guideNames: userNames).addRoutes(to: routes)
            ReviewRoutes(reviews: reviews, userNames: userNames).addRoutes(to: routes)
            commerce.routes(now: now) { ids in
                var owned: [UUID: OwnedTourBundle] = [:]
                for id in ids {
                    if let latest = try await bundles.latest(id) { owned[id] = OwnedTourBundle(version: latest.version, sizeBytes: latest.sizeBytes) }
                }
                return owned
            }.addRoutes(to: routes)
            FavouritesRoutes(favourites: favourites, destinations: index, guideNames: userNames).addRoutes(to: routes)
            storage.addFeedRoutes(to: routes, include: TourManagementEvents.isServedByFeed)
        }
    }
}

/// tour-management's read models over its own log, each on the configured backend.
public struct TourReadModels: Sendable {
    public let guideTours: any ProjectionRunning
    public let discovery: any ProjectionRunning
    public let tourMedia: any ProjectionRunning
    public let entitlements: any ProjectionRunning
    public let bundleQueue: any ProjectionRunning
    public let reviews: any ProjectionRunning

    /// Every one (background services, readiness checks).
    public var all: [any ProjectionRunning] { [guideTours, discovery, tourMedia, entitlements, bundleQueue, reviews] }

    /// Creates the runners and their tables.
    public static func prepare(_ storage: ServiceStorage, logger: Logger) async throws -> TourReadModels {
        let models = TourReadModels(
            guideTours: storage.projection(sqlite: SQLiteGuideToursProjection(), postgres: PostgresGuideToursProjection(), logger: logger),
            discovery: storage.projection(sqlite: SQLiteDiscoveryProjection(), postgres: PostgresDiscoveryProjection(), logger: logger),
            tourMedia: storage.projection(sqlite: SQLiteTourMediaProjection(), postgres: PostgresTourMediaProjection(), logger: logger),
            entitlements: storage.projection(sqlite: SQLiteEntitlementsProjection(), postgres: PostgresEntitlementsProjection(), logger: logger),
            bundleQueue: storage.projection(sqlite: SQLiteBundleQueueProjection(), postgres: PostgresBundleQueueProjection(), logger: logger),
            reviews: storage.projection(sqlite: SQLiteReviewsProjection(), postgres: PostgresReviewsProjection(), logger: logger))
        for projection in models.all { try await projection.prepare() }
        return models
    }
}

/// What tour-management publishes on `waypoint.tours` (relay and embedded feed): exactly the published language in
/// `Shared/Contracts/Tours` — internal events (review reports, purchase bookkeeping, …) stay in the service's log.
public enum TourManagementEvents {
    public static let publishedTypes: Set<String> = [
        TourDrafted.eventType, TourDetailsChanged.eventType, StopAdded.eventType, StopChanged.eventType, StopsReordered.eventType,
        StopRemoved.eventType, MediaAttached.eventType, TourPublished.eventType, TourUnpublished.eventType, TourDraftExpired.eventType,
        TourDeleted.eventType,
        PurchaseStarted.eventType, PurchaseCompleted.eventType, PurchaseFailed.eventType, PurchaseRefunded.eventType, TourAcquired.eventType,
        ReviewPosted.eventType, ReviewEdited.eventType, ReviewReplied.eventType, ReviewHidden.eventType, TourFavourited.eventType,
        TourUnfavourited.eventType, TourStarted.eventType, StopCompleted.eventType, TourCompleted.eventType, TourViewed.eventType,
        BundlePublished.eventType,
    ]

    public static func isPublished(_ envelope: EventEnvelope) -> Bool { publishedTypes.contains(envelope.eventType) }

    /// What tour-management publishes on `waypoint.notifications`: the `UserNotified` events of its `UserNotifier`.
    public static func isNotification(_ envelope: EventEnvelope) -> Bool { UserNotifications.isNotification(envelope) }

    /// What the embedded feed serves: both topics' events (consumers keep the types they know; the gateway's notification
    /// hub keeps only `UserNotified`).
    public static func isServedByFeed(_ envelope: EventEnvelope) -> Bool { isPublished(envelope) || isNotification(envelope) }

    /// The relays on Kafka: the published language to `waypoint.tours`, notifications to `waypoint.notifications`.
    public static let topics = [PublishedTopic(Topic.tours.name, include: isPublished),
                                PublishedTopic(Topic.notifications.name, include: isNotification)]
}
