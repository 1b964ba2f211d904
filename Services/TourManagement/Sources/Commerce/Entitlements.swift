import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// How a traveller came to own a tour.
public enum EntitlementSource: String, Codable, Sendable, Hashable {
    case purchase
    case free
}

/// One traveller's ownership of one tour, as the `entitlements` read model holds it.
public struct Entitlement: Sendable, Hashable, Codable {
    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    public var source: EntitlementSource
    /// The purchase that granted it (`nil` for free tours).
    public var purchaseId: UUID?
    /// The published revision at the time of purchase or acquisition.
    public var revision: Int
    /// What was paid (0 for free tours).
    public var price: Money
    public var grantedAt: Date
    /// Set when a refund took it back; a revoked row is kept so the owner's history stays complete.
    public var revokedAt: Date?

    public var isActive: Bool { revokedAt == nil }

    public init(tourId: UUID, userId: UUID, guideId: UUID, source: EntitlementSource, purchaseId: UUID?, revision: Int, price: Money,
                grantedAt: Date, revokedAt: Date?) {
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.source = source
        self.purchaseId = purchaseId
        self.revision = revision
        self.price = price
        self.grantedAt = grantedAt
        self.revokedAt = revokedAt
    }
}

/// The events that grant and revoke ownership.
enum EntitlementEvent: Sendable {
    case completed(PurchaseCompleted)
    case acquired(TourAcquired)
    case refunded(PurchaseRefunded)

    static let types = EventTypeMap<EntitlementEvent>()
        .registering(PurchaseCompleted.self) { .completed($0) }
        .registering(TourAcquired.self) { .acquired($0) }
        .registering(PurchaseRefunded.self) { .refunded($0) }

    /// How an event changes the row of (tour, user); both backends apply exactly this.
    static func fold(_ existing: Entitlement?, _ event: EntitlementEvent) -> Entitlement? {
        switch event {
        case .completed(let e):
            return Entitlement(tourId: e.tourId, userId: e.userId, guideId: e.guideId, source: .purchase, purchaseId: e.purchaseId,
                               revision: e.revision, price: e.price, grantedAt: e.completedAt, revokedAt: nil)
        case .acquired(let e):
            return Entitlement(tourId: e.tourId, userId: e.userId, guideId: e.guideId, source: .free, purchaseId: nil, revision: e.revision,
                               price: .zero(.eur), grantedAt: e.acquiredAt, revokedAt: nil)
        case .refunded(let e):
            guard var row = existing, row.purchaseId == e.purchaseId else { return existing }
            row.revokedAt = e.refundedAt
            return row
        }
    }

    var key: (tour: UUID, user: UUID) {
        switch self {
        case .completed(let e): (e.tourId, e.userId)
        case .acquired(let e): (e.tourId, e.userId)
        case .refunded(let e): (e.tourId, e.userId)
        }
    }
}

/// The `entitlements` read model on SQLite.
public struct SQLiteEntitlementsProjection: SQLiteProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { EntitlementEvent.types.eventTypes }

    public let name = "entitlements"
    public let tables = ["entitlements"]

    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("entitlements")) (tour_id TEXT NOT NULL, user_id TEXT NOT NULL, row TEXT NOT NULL, active INTEGER NOT NULL,
                granted_at_us INTEGER NOT NULL, PRIMARY KEY (tour_id, user_id));
            CREATE INDEX \(t.index("entitlements_by_user")) ON \(t("entitlements")) (user_id, granted_at_us);
            """)
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let decoded = try EntitlementEvent.types.decode(event) else { return }
        let (tour, user) = decoded.key
        let keys: StatementArguments = [tour.uuidString.lowercased(), user.uuidString.lowercased()]
        let existing = try String.fetchOne(db, sql: "SELECT row FROM \(t("entitlements")) WHERE tour_id = ? AND user_id = ?", arguments: keys)
            .map { try Entitlements.decode($0) }
        guard let row = EntitlementEvent.fold(existing, decoded), row != existing else { return }
        try db.execute(sql: "INSERT OR REPLACE INTO \(t("entitlements")) (tour_id, user_id, row, active, granted_at_us) VALUES (?, ?, ?, ?, ?)",
                       arguments: keys + [try Entitlements.encode(row), row.isActive, row.grantedAt.microsecondsSince1970])
    }
}

/// The `entitlements` read model on PostgreSQL.
public struct PostgresEntitlementsProjection: PostgresProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { EntitlementEvent.types.eventTypes }

    public let name = "entitlements"
    public let tables = ["entitlements"]

    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            """
            CREATE TABLE \(t("entitlements")) (tour_id uuid NOT NULL, user_id uuid NOT NULL, row text NOT NULL, active boolean NOT NULL,
                granted_at_us bigint NOT NULL, PRIMARY KEY (tour_id, user_id))
            """,
            "CREATE INDEX \(t.index("entitlements_by_user")) ON \(t("entitlements")) (user_id, granted_at_us)",
        ] {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let decoded = try EntitlementEvent.types.decode(event) else { return }
        let (tour, user) = decoded.key
        let select: PostgresQuery = "SELECT row FROM \(unescaped: t("entitlements")) WHERE tour_id = \(tour) AND user_id = \(user)"
        var existing: Entitlement?
        for try await (text) in try await connection.query(select, logger: connection.logger).decode(String.self) {
            existing = try Entitlements.decode(text)
        }
        guard let row = EntitlementEvent.fold(existing, decoded), row != existing else { return }
        let encoded = try Entitlements.encode(row)
        try await connection.query("""
            INSERT INTO \(unescaped: t("entitlements")) (tour_id, user_id, row, active, granted_at_us)
            VALUES (\(tour), \(user), \(encoded), \(row.isActive), \(row.grantedAt.microsecondsSince1970))
            ON CONFLICT (tour_id, user_id) DO UPDATE SET row = excluded.row, active = excluded.active, granted_at_us = excluded.granted_at_us
            """, logger: connection.logger)
    }
}

/// Reads of the `entitlements` read model over an ``EntitlementStore``. It trails the log by the projection's poll
/// interval; commands that must not act on a stale answer (buying a tour twice) decide on the `access-…` stream instead.
public struct Entitlements: Sendable {
    let store: any EntitlementStore

    /// The reads over `store` (the composition root picks its backend: ``TourManagementStores/entitlements``).
    public init(store: any EntitlementStore) {
        self.store = store
    }

    static func encode(_ row: Entitlement) throws -> String {
        String(decoding: try JSONEncoder().encode(row), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> Entitlement {
        try JSONDecoder().decode(Entitlement.self, from: Data(text.utf8))
    }

    /// The row of (tour, user), active or revoked.
    public func entitlement(tour: UUID, user: UUID) async throws -> Entitlement? {
        try await store.entitlement(tour: tour, user: user)
    }

    /// Whether `user` owns `tour` now.
    public func isEntitled(user: UUID, tour: UUID) async throws -> Bool {
        try await entitlement(tour: tour, user: user)?.isActive ?? false
    }

    /// The tours `user` owns now, most recently granted first.
    public func owned(by user: UUID) async throws -> [Entitlement] {
        try await store.owned(by: user)
    }
}
