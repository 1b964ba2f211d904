import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// One row of the `guide_tours` read model: a tour as its guide's dashboard lists it.
public struct GuideTourRow: Sendable, Hashable, Codable {
    public var tourId: UUID
    public var guideId: UUID
    public var title: String
    public var destinationId: Int64
    public var status: TourStatus
    /// Last published revision (0 = never published).
    public var revision: Int
    /// Whether the working copy changed after the last publication (a new revision waits to be published).
    public var changedSincePublish: Bool
    public var lastChangedAt: Date
    public var publishedAt: Date?
}

/// How each tour event changes a `guide_tours` row; both backends apply exactly this.
enum GuideTourFold {
    enum Change {
        case insert(GuideTourRow)
        case update(UUID, (inout GuideTourRow) -> Void)
    }

    static func change(for event: TourEvent) -> Change {
        func touched(_ id: UUID, _ at: Date) -> Change {
            .update(id) { row in
                row.lastChangedAt = at
                if row.revision > 0 { row.changedSincePublish = true }
            }
        }
        switch event {
        case .drafted(let e):
            return .insert(GuideTourRow(tourId: e.tourId, guideId: e.guideId, title: e.details.title, destinationId: e.details.destinationId,
                                        status: .draft, revision: 0, changedSincePublish: false, lastChangedAt: e.draftedAt, publishedAt: nil))
        case .detailsChanged(let e):
            return .update(e.tourId) { row in
                row.title = e.details.title
                row.destinationId = e.details.destinationId
                row.lastChangedAt = e.changedAt
                if row.revision > 0 { row.changedSincePublish = true }
            }
        case .stopAdded(let e): return touched(e.tourId, e.addedAt)
        case .stopChanged(let e): return touched(e.tourId, e.changedAt)
        case .stopsReordered(let e): return touched(e.tourId, e.reorderedAt)
        case .stopRemoved(let e): return touched(e.tourId, e.removedAt)
        case .mediaAttached(let e): return touched(e.tourId, e.attachedAt)
        case .published(let e):
            return .update(e.tourId) { row in
                row.status = .published
                row.revision = e.revision
                row.title = e.details.title
                row.destinationId = e.details.destinationId
                row.changedSincePublish = false
                row.lastChangedAt = e.publishedAt
                row.publishedAt = e.publishedAt
            }
        case .unpublished(let e):
            return .update(e.tourId) { row in
                row.status = .unpublished
                row.lastChangedAt = e.unpublishedAt
            }
        case .draftExpired(let e): return .update(e.tourId) { $0.status = .expired }
        case .deleted(let e): return .update(e.tourId) { $0.status = .deleted }
        }
    }
}

/// The `guide_tours` read model on SQLite.
public struct SQLiteGuideToursProjection: SQLiteProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { TourAggregate.eventTypes.eventTypes }

    public let name = "guide_tours"
    public let tables = ["guide_tours"]

    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("guide_tours")) (
                tour_id TEXT PRIMARY KEY, guide_id TEXT NOT NULL, title TEXT NOT NULL, destination_id INTEGER NOT NULL,
                status TEXT NOT NULL, revision INTEGER NOT NULL, changed_since_publish INTEGER NOT NULL,
                last_changed_at_us INTEGER NOT NULL, published_at_us INTEGER);
            CREATE INDEX \(t.index("guide_tours_by_guide")) ON \(t("guide_tours")) (guide_id, last_changed_at_us);
            CREATE INDEX \(t.index("guide_tours_by_status")) ON \(t("guide_tours")) (status, last_changed_at_us);
            """)
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let decoded = try TourAggregate.eventTypes.decode(event) else { return }
        switch GuideTourFold.change(for: decoded) {
        case .insert(let row):
            try Self.write(row, db, t)
        case .update(let id, let change):
            guard var row = try Self.read(id, db, table: t("guide_tours")) else { return }
            change(&row)
            try Self.write(row, db, t)
        }
    }

    static func write(_ row: GuideTourRow, _ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO \(t("guide_tours")) (tour_id, guide_id, title, destination_id, status, revision, changed_since_publish,
                last_changed_at_us, published_at_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [row.tourId.uuidString.lowercased(), row.guideId.uuidString.lowercased(), row.title, row.destinationId,
                             row.status.rawValue, row.revision, row.changedSincePublish, row.lastChangedAt.microsecondsSince1970,
                             row.publishedAt?.microsecondsSince1970])
    }

    static func read(_ id: UUID, _ db: Database, table: String) throws -> GuideTourRow? {
        try Row.fetchOne(db, sql: "SELECT * FROM \(table) WHERE tour_id = ?", arguments: [id.uuidString.lowercased()]).map(row)
    }

    static func row(_ row: Row) -> GuideTourRow {
        GuideTourRow(
            tourId: UUID(uuidString: row["tour_id"])!, guideId: UUID(uuidString: row["guide_id"])!, title: row["title"],
            destinationId: row["destination_id"], status: TourStatus(rawValue: row["status"]) ?? .draft, revision: row["revision"],
            changedSincePublish: row["changed_since_publish"], lastChangedAt: Date(microsecondsSince1970: row["last_changed_at_us"]),
            publishedAt: (row["published_at_us"] as Int64?).map { Date(microsecondsSince1970: $0) })
    }
}

/// The `guide_tours` read model on PostgreSQL.
public struct PostgresGuideToursProjection: PostgresProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { TourAggregate.eventTypes.eventTypes }

    public let name = "guide_tours"
    public let tables = ["guide_tours"]

    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            """
            CREATE TABLE \(t("guide_tours")) (
                tour_id uuid PRIMARY KEY, guide_id uuid NOT NULL, title text NOT NULL, destination_id bigint NOT NULL,
                status text NOT NULL, revision int NOT NULL, changed_since_publish boolean NOT NULL,
                last_changed_at timestamptz NOT NULL, published_at timestamptz)
            """,
            "CREATE INDEX \(t.index("guide_tours_by_guide")) ON \(t("guide_tours")) (guide_id, last_changed_at)",
            "CREATE INDEX \(t.index("guide_tours_by_status")) ON \(t("guide_tours")) (status, last_changed_at)",
        ] {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let decoded = try TourAggregate.eventTypes.decode(event) else { return }
        switch GuideTourFold.change(for: decoded) {
        case .insert(let row):
            try await Self.write(row, connection, t)
        case .update(let id, let change):
            let select: PostgresQuery = "SELECT \(unescaped: Self.columns) FROM \(unescaped: t("guide_tours")) WHERE tour_id = \(id)"
            var found: GuideTourRow?
            for try await row in try await connection.query(select, logger: connection.logger) { found = try Self.row(row) }
            guard var row = found else { return }
            change(&row)
            try await Self.write(row, connection, t)
        }
    }

    static let columns = "tour_id, guide_id, title, destination_id, status, revision, changed_since_publish, last_changed_at, published_at"

    static func write(_ row: GuideTourRow, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        try await connection.query("""
            INSERT INTO \(unescaped: t("guide_tours")) (\(unescaped: columns))
            VALUES (\(row.tourId), \(row.guideId), \(row.title), \(row.destinationId), \(row.status.rawValue), \(Int32(row.revision)),
                \(row.changedSincePublish), \(row.lastChangedAt), \(row.publishedAt))
            ON CONFLICT (tour_id) DO UPDATE SET guide_id = excluded.guide_id, title = excluded.title,
                destination_id = excluded.destination_id, status = excluded.status, revision = excluded.revision,
                changed_since_publish = excluded.changed_since_publish, last_changed_at = excluded.last_changed_at,
                published_at = excluded.published_at
            """, logger: connection.logger)
    }

    static func row(_ row: PostgresRow) throws -> GuideTourRow {
        let (tour, guide, title, destination, status, revision, changed, last, published) = try row.decode(
            (UUID, UUID, String, Int64, String, Int32, Bool, Date, Date?).self)
        return GuideTourRow(tourId: tour, guideId: guide, title: title, destinationId: destination, status: TourStatus(rawValue: status) ?? .draft,
                            revision: Int(revision), changedSincePublish: changed, lastChangedAt: last, publishedAt: published)
    }
}

/// Reads of the `guide_tours` read model over a ``GuideTourReadStore``.
public struct GuideTours: Sendable {
    let store: any GuideTourReadStore

    /// The reads over `store` (the composition root picks its backend: ``TourManagementStores/guideTours``).
    public init(store: any GuideTourReadStore) {
        self.store = store
    }

    /// A guide's tours, most recently changed first (deleted and expired drafts excluded).
    public func tours(ofGuide guideId: UUID) async throws -> [GuideTourRow] {
        try await store.rows(ofGuide: guideId).filter { $0.status != .deleted && $0.status != .expired }
    }

    /// Never-published drafts untouched since `cutoff` (the expiry job's work list).
    public func drafts(untouchedSince cutoff: Date) async throws -> [GuideTourRow] {
        try await store.rows(in: .draft, changedBefore: cutoff)
    }

    /// Published tours per destination.
    public func publishedCountsByDestination() async throws -> [Int64: Int] {
        try await store.rows(in: .published, changedBefore: nil).reduce(into: [:]) { $0[$1.destinationId, default: 0] += 1 }
    }
}
