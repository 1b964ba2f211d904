import EventSourcing
import Messaging

/// tour-management's own stores on the configured backend, opened once by the composition root
/// (``TourManagementServer/assemble(_:storage:logger:)``) after ``TourManagementMigrations`` ran: the one place the
/// service chooses between its SQLite and PostgreSQL implementations.
public struct TourManagementStores: Sendable {
    /// The storage the stores live in.
    public let storage: ServiceStorage
    /// The gazetteer's cities.
    public let destinations: any DestinationStore
    /// Uploaded media objects.
    public let mediaCatalog: any MediaCatalog
    /// Operators' exchange rates.
    public let exchangeRates: any ExchangeRateStore
    /// The payments part's settings and sandbox checkouts.
    public let paymentRecords: any PaymentRecords
    /// The key signing offline bundles.
    public let bundleSigningKeys: any BundleSigningKeyStore
    /// Erased accounts whose content is still to remove.
    public let erasures: any ErasureStore
    /// Published revisions still waiting for their offline bundle.
    public let bundleQueue: any BundleQueueStore
    /// Reviews as the `reviews` read model keeps them.
    public let reviewReads: any ReviewReadStore
    /// Accounts as the `waypoint.auth` consumer keeps them in `guide_accounts`.
    public let guideAccounts: any GuideAccountStore
    /// The discovery read model's searches (``TourCatalog``).
    public let catalog: any TourCatalogStore
    /// The `entitlements` read model (``Entitlements``).
    public let entitlements: any EntitlementStore
    /// The `guide_tours` read model (``GuideTours``).
    public let guideTours: any GuideTourReadStore

    /// Applies ``TourManagementMigrations`` to `storage`'s database, then opens every store on its backend.
    public static func open(_ storage: ServiceStorage) async throws -> TourManagementStores {
        try await storage.migrate(TourManagementMigrations.all)
        return storage.backend(sqlite: { TourManagementStores(storage, sqlite: $0) }, postgres: { TourManagementStores(storage, postgres: $0) })
    }

    private init(_ storage: ServiceStorage, sqlite database: SQLiteServiceDatabase) {
        self.storage = storage
        destinations = SQLiteDestinationStore(database: database)
        mediaCatalog = SQLiteMediaCatalog(database: database)
        exchangeRates = SQLiteExchangeRateStore(database: database)
        paymentRecords = SQLitePaymentRecords(database: database)
        bundleSigningKeys = SQLiteBundleSigningKeyStore(database: database)
        erasures = SQLiteErasureStore(database: database)
        bundleQueue = SQLiteBundleQueueStore(database: database)
        reviewReads = SQLiteReviewReadStore(database: database)
        guideAccounts = SQLiteGuideAccountStore(database: database)
        catalog = SQLiteTourCatalogStore(database: database)
        entitlements = SQLiteEntitlementStore(database: database)
        guideTours = SQLiteGuideTourReadStore(database: database)
    }

    private init(_ storage: ServiceStorage, postgres database: PostgresServiceDatabase) {
        self.storage = storage
        destinations = PostgresDestinationStore(database: database)
        mediaCatalog = PostgresMediaCatalog(database: database)
        exchangeRates = PostgresExchangeRateStore(database: database)
        paymentRecords = PostgresPaymentRecords(database: database)
        bundleSigningKeys = PostgresBundleSigningKeyStore(database: database)
        erasures = PostgresErasureStore(database: database)
        bundleQueue = PostgresBundleQueueStore(database: database)
        reviewReads = PostgresReviewReadStore(database: database)
        guideAccounts = PostgresGuideAccountStore(database: database)
        catalog = PostgresTourCatalogStore(database: database)
        entitlements = PostgresEntitlementStore(database: database)
        guideTours = PostgresGuideTourReadStore(database: database)
    }
}
