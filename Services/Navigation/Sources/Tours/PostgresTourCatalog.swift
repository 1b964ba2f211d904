import Contracts
import EventSourcing
import Foundation
import Messaging
import PostgresNIO

/// ``SQLiteTourCatalogHandler`` on PostgreSQL.
public struct PostgresTourCatalogHandler: PostgresEventHandler {
    public var name: String { TourCatalogTables.consumer }
    public var eventTypes: Set<String>? { TourCatalogChange.eventTypes }

    public init() {}

    public func createTables(_ connection: PostgresConnection) async throws {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS navigable_tours (tour_id uuid PRIMARY KEY, guide_id uuid NOT NULL, title text NOT NULL, mode text NOT NULL,
                stops text NOT NULL)
            """, logger: connection.logger)
        try await connection.query("CREATE TABLE IF NOT EXISTS tour_owners (tour_id uuid NOT NULL, user_id uuid NOT NULL, PRIMARY KEY (tour_id, user_id))",
                                   logger: connection.logger)
    }

    public func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws {
        guard let change = try TourCatalogChange.of(event) else { return }
        let logger = connection.logger
        switch change {
        case .published(let tour, let guide, let title, let mode, let stops):
            let text = TourCatalogChange.text(stops)
            try await connection.query("""
                INSERT INTO navigable_tours (tour_id, guide_id, title, mode, stops) VALUES (\(tour), \(guide), \(title), \(mode.rawValue), \(text))
                ON CONFLICT (tour_id) DO UPDATE SET guide_id = excluded.guide_id, title = excluded.title, mode = excluded.mode, stops = excluded.stops
                """, logger: logger)
        case .deleted(let tour):
            try await connection.query("DELETE FROM navigable_tours WHERE tour_id = \(tour)", logger: logger)
        case .owns(let tour, let user):
            try await connection.query("INSERT INTO tour_owners (tour_id, user_id) VALUES (\(tour), \(user)) ON CONFLICT DO NOTHING", logger: logger)
        case .disowns(let tour, let user):
            try await connection.query("DELETE FROM tour_owners WHERE tour_id = \(tour) AND user_id = \(user)", logger: logger)
        }
    }
}

/// ``TourCatalogStore`` on PostgreSQL.
public struct PostgresTourCatalogStore: TourCatalogStore {
    let database: PostgresServiceDatabase

    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func navigable(_ tourId: UUID, by user: UUID) async throws -> NavigableTour? {
        guard try await database.tableExists("navigable_tours") else { return nil }
        for try await (guide, title, mode, stops) in try await database.client.query("""
            SELECT guide_id, title, mode, stops FROM navigable_tours t WHERE tour_id = \(tourId)
              AND (guide_id = \(user) OR EXISTS (SELECT 1 FROM tour_owners o WHERE o.tour_id = t.tour_id AND o.user_id = \(user)))
            """, logger: database.logger).decode((UUID, String, String, String).self) {
            return NavigableTour(tourId: tourId, guideId: guide, title: title, mode: TourMode(rawValue: mode) ?? .walk,
                                 stops: try TourCatalogChange.stops(stops))
        }
        return nil
    }
}
