import EventSourcing
import Messaging
import TourManagement

extension ServiceStorage {
    /// The discovery read model's reads on this storage's backend.
    var tourCatalog: TourCatalog {
        TourCatalog(store: backend(sqlite: { SQLiteTourCatalogStore(database: $0) }, postgres: { PostgresTourCatalogStore(database: $0) }))
    }

    /// The `entitlements` read model's reads on this storage's backend.
    var entitlementReads: Entitlements {
        Entitlements(store: backend(sqlite: { SQLiteEntitlementStore(database: $0) }, postgres: { PostgresEntitlementStore(database: $0) }))
    }

    /// The `guide_tours` read model's reads on this storage's backend.
    var guideTourReads: GuideTours {
        GuideTours(store: backend(sqlite: { SQLiteGuideTourReadStore(database: $0) }, postgres: { PostgresGuideTourReadStore(database: $0) }))
    }
}
