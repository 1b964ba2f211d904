import Contracts
import EventSourcing
import Foundation
import GRDB
import Messaging
import PostgresNIO

/// Reads of the places read model (``SQLitePlacesProjection``, ``PostgresPlacesProjection``): rows still sealed.
public protocol PlacesReadStore: Sendable {
    /// Every favourite of `user` (at most 200), in no particular order: names are sealed, the order is made when opened.
    func favourites(of user: UUID) async throws -> [FavouritePlaceRow]
    /// One favourite of `user`; `nil` for an unknown id or another traveller's.
    func favourite(_ id: UUID, of user: UUID) async throws -> FavouritePlaceRow?
    /// The newest `limit` recents of `user`, newest first (ties by the greater id).
    func recents(of user: UUID, limit: Int) async throws -> [RecentPlaceRow]
}

/// The places stores on the configured backend (the one place places chooses between SQLite and PostgreSQL).
public enum PlacesStores {
    /// The read model's reads.
    public static func open(_ storage: ServiceStorage) -> any PlacesReadStore {
        storage.backend(sqlite: { SQLitePlacesReadStore(database: $0) }, postgres: { PostgresPlacesReadStore(database: $0) })
    }
}

/// ``PlacesReadStore`` in the embedded SQLite database.
public struct SQLitePlacesReadStore: PlacesReadStore {
    let database: SQLiteServiceDatabase

    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func favourites(of user: UUID) async throws -> [FavouritePlaceRow] {
        try await favourites(where: "user_id = ?", [user.uuidString.lowercased()])
    }

    public func favourite(_ id: UUID, of user: UUID) async throws -> FavouritePlaceRow? {
        try await favourites(where: "user_id = ? AND place_id = ?", [user.uuidString.lowercased(), id.uuidString.lowercased()]).first
    }

    private func favourites(where condition: String, _ arguments: StatementArguments) async throws -> [FavouritePlaceRow] {
        let sql = "SELECT user_id, place_id, name, place, added_at_us, updated_at_us FROM place_favourites WHERE \(condition)"
        return try await database.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                FavouritePlaceRow(userId: try Self.uuid(row[0]), placeId: try Self.uuid(row[1]), name: try PlacesRowChange.sealed(row[2]),
                                  place: try PlacesRowChange.sealed(row[3]), addedAt: Date(microsecondsSince1970: row[4]),
                                  updatedAt: Date(microsecondsSince1970: row[5]))
            }
        }
    }

    public func recents(of user: UUID, limit: Int) async throws -> [RecentPlaceRow] {
        try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT user_id, recent_id, name, place, kind, at_us FROM place_recents WHERE user_id = ?
                ORDER BY at_us DESC, recent_id DESC LIMIT ?
                """, arguments: [user.uuidString.lowercased(), limit]).map { row in
                let name: String? = row[2]
                return RecentPlaceRow(userId: try Self.uuid(row[0]), recentId: try Self.uuid(row[1]), name: try name.map(PlacesRowChange.sealed),
                                      place: try PlacesRowChange.sealed(row[3]), kind: try Self.kind(row[4]), at: Date(microsecondsSince1970: row[5]))
            }
        }
    }

    static func uuid(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else { throw PlacesRowError(description: "not a uuid: \(text)") }
        return id
    }

    static func kind(_ text: String) throws -> RecentPlaceKind {
        guard let kind = RecentPlaceKind(rawValue: text) else { throw PlacesRowError(description: "not a recent kind: \(text)") }
        return kind
    }
}

/// A stored row that does not read back.
struct PlacesRowError: Error, CustomStringConvertible {
    var description: String
}

/// ``PlacesReadStore`` in the service's PostgreSQL database.
public struct PostgresPlacesReadStore: PlacesReadStore {
    let database: PostgresServiceDatabase

    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func favourites(of user: UUID) async throws -> [FavouritePlaceRow] {
        try await favourites("""
            SELECT user_id, place_id, name, place, added_at_us, updated_at_us FROM place_favourites WHERE user_id = \(user)
            """)
    }

    public func favourite(_ id: UUID, of user: UUID) async throws -> FavouritePlaceRow? {
        try await favourites("""
            SELECT user_id, place_id, name, place, added_at_us, updated_at_us FROM place_favourites WHERE user_id = \(user) AND place_id = \(id)
            """).first
    }

    private func favourites(_ query: PostgresQuery) async throws -> [FavouritePlaceRow] {
        var rows: [FavouritePlaceRow] = []
        let decoded = try await database.client.query(query, logger: database.logger).decode((UUID, UUID, String, String, Int64, Int64).self)
        for try await (user, place, name, sealed, added, updated) in decoded {
            rows.append(FavouritePlaceRow(userId: user, placeId: place, name: try PlacesRowChange.sealed(name), place: try PlacesRowChange.sealed(sealed),
                                          addedAt: Date(microsecondsSince1970: added), updatedAt: Date(microsecondsSince1970: updated)))
        }
        return rows
    }

    public func recents(of user: UUID, limit: Int) async throws -> [RecentPlaceRow] {
        let query: PostgresQuery = """
            SELECT user_id, recent_id, name, place, kind, at_us FROM place_recents WHERE user_id = \(user)
            ORDER BY at_us DESC, recent_id DESC LIMIT \(limit)
            """
        var rows: [RecentPlaceRow] = []
        let decoded = try await database.client.query(query, logger: database.logger).decode((UUID, UUID, String?, String, String, Int64).self)
        for try await (user, recent, name, place, kind, at) in decoded {
            rows.append(RecentPlaceRow(userId: user, recentId: recent, name: try name.map(PlacesRowChange.sealed), place: try PlacesRowChange.sealed(place),
                                       kind: try SQLitePlacesReadStore.kind(kind), at: Date(microsecondsSince1970: at)))
        }
        return rows
    }
}
