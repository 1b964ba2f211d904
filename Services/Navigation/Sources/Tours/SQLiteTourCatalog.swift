import Contracts
import EventSourcing
import Foundation
import GRDB
import Messaging

/// The `waypoint.tours` consumer on SQLite: published tours' stops (`navigable_tours`) and who owns which tour
/// (`tour_owners`), changed in the consumer's transaction.
public struct SQLiteTourCatalogHandler: SQLiteEventHandler {
    public var name: String { TourCatalogTables.consumer }
    public var eventTypes: Set<String>? { TourCatalogChange.eventTypes }

    public init() {}

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS navigable_tours (tour_id TEXT PRIMARY KEY, guide_id TEXT NOT NULL, title TEXT NOT NULL, mode TEXT NOT NULL,
                stops TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS tour_owners (tour_id TEXT NOT NULL, user_id TEXT NOT NULL, PRIMARY KEY (tour_id, user_id)) WITHOUT ROWID;
            """)
    }

    public func handle(_ event: PublishedEvent, _ db: Database) throws {
        guard let change = try TourCatalogChange.of(event) else { return }
        switch change {
        case .published(let tour, let guide, let title, let mode, let stops):
            try db.execute(sql: """
                INSERT INTO navigable_tours (tour_id, guide_id, title, mode, stops) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (tour_id) DO UPDATE SET guide_id = excluded.guide_id, title = excluded.title, mode = excluded.mode, stops = excluded.stops
                """, arguments: [Self.key(tour), Self.key(guide), title, mode.rawValue, TourCatalogChange.text(stops)])
        case .deleted(let tour):
            try db.execute(sql: "DELETE FROM navigable_tours WHERE tour_id = ?", arguments: [Self.key(tour)])
        case .owns(let tour, let user):
            try db.execute(sql: "INSERT OR IGNORE INTO tour_owners (tour_id, user_id) VALUES (?, ?)", arguments: [Self.key(tour), Self.key(user)])
        case .disowns(let tour, let user):
            try db.execute(sql: "DELETE FROM tour_owners WHERE tour_id = ? AND user_id = ?", arguments: [Self.key(tour), Self.key(user)])
        }
    }

    static func key(_ id: UUID) -> String { id.uuidString.lowercased() }
}

/// ``TourCatalogStore`` on SQLite.
public struct SQLiteTourCatalogStore: TourCatalogStore {
    let database: SQLiteServiceDatabase

    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func navigable(_ tourId: UUID, by user: UUID) async throws -> NavigableTour? {
        let tour = SQLiteTourCatalogHandler.key(tourId), person = SQLiteTourCatalogHandler.key(user)
        return try await database.read { db -> NavigableTour? in
            guard try db.tableExists("navigable_tours"), let row = try Row.fetchOne(db, sql: """
                SELECT guide_id, title, mode, stops FROM navigable_tours t WHERE tour_id = ?
                  AND (guide_id = ? OR EXISTS (SELECT 1 FROM tour_owners o WHERE o.tour_id = t.tour_id AND o.user_id = ?))
                """, arguments: [tour, person, person]) else { return nil }
            return NavigableTour(tourId: tourId, guideId: UUID(uuidString: row[0]) ?? UUID(), title: row[1], mode: TourMode(rawValue: row[2]) ?? .walk,
                                 stops: try TourCatalogChange.stops(row[3]))
        }
    }
}
