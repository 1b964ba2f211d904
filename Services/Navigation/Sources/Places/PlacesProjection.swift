import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// One favourite as the `place_favourites` read model keeps it: name and place still sealed (see ``NavigationPlaces``).
public struct FavouritePlaceRow: Sendable, Hashable {
    public var userId: UUID
    public var placeId: UUID
    public var name: SealedPersonalData
    public var place: SealedPersonalData
    public var addedAt: Date
    public var updatedAt: Date
}

/// One recent location as the `place_recents` read model keeps it (name and place sealed).
public struct RecentPlaceRow: Sendable, Hashable {
    public var userId: UUID
    public var recentId: UUID
    public var name: SealedPersonalData?
    public var place: SealedPersonalData
    public var kind: RecentPlaceKind
    public var at: Date
}

/// What one places event does to the read model's rows; both backends carry out exactly these.
enum PlacesRowChange: Sendable, Hashable {
    case addFavourite(FavouritePlaceRow)
    case renameFavourite(user: UUID, id: UUID, name: SealedPersonalData, at: Date)
    case removeFavourite(user: UUID, id: UUID)
    case addRecent(RecentPlaceRow)
    case reviseRecent(user: UUID, id: UUID, name: SealedPersonalData?, kind: RecentPlaceKind, at: Date)
    case removeRecents(user: UUID, ids: [UUID])
    case clearRecents(user: UUID)
    case forget(user: UUID)

    static func changes(_ event: PlacesEvent) -> [PlacesRowChange] {
        switch event {
        case .favouriteAdded(let e):
            [.addFavourite(FavouritePlaceRow(userId: e.userId, placeId: e.placeId, name: e.name, place: e.place, addedAt: e.addedAt, updatedAt: e.addedAt))]
        case .favouriteRenamed(let e): [.renameFavourite(user: e.userId, id: e.placeId, name: e.name, at: e.renamedAt)]
        case .favouriteRemoved(let e): [.removeFavourite(user: e.userId, id: e.placeId)]
        case .recentRecorded(let e):
            [.addRecent(RecentPlaceRow(userId: e.userId, recentId: e.recentId, name: e.name, place: e.place, kind: e.kind, at: e.at)),
             .removeRecents(user: e.userId, ids: e.evicted)]
        case .recentRevisited(let e): [.reviseRecent(user: e.userId, id: e.recentId, name: e.name, kind: e.kind, at: e.at)]
        case .recentsCleared(let e): [.clearRecents(user: e.userId)]
        case .erased(let e): [.forget(user: e.userId)]
        }
    }

    /// A sealed value as a column: its JSON.
    static func column(_ sealed: SealedPersonalData) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(sealed), as: UTF8.self)
    }

    static func sealed(_ column: String) throws -> SealedPersonalData {
        try JSONDecoder().decode(SealedPersonalData.self, from: Data(column.utf8))
    }
}

/// The places read model on SQLite: `place_favourites` and `place_recents`, one row per favourite and per recent, with
/// names and places as sealed JSON (opened when read, so a copy of the database reveals nobody's home).
public struct SQLitePlacesProjection: SQLiteProjection {
    public let name = "places"
    /// Only the places aggregate's events: the session events beside them (a position update per fix) are never read.
    public var eventTypes: Set<String>? { PlacesAggregate.eventTypes.eventTypes }
    public let tables = ["place_favourites", "place_recents"]

    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("place_favourites")) (user_id TEXT NOT NULL, place_id TEXT NOT NULL, name TEXT NOT NULL, place TEXT NOT NULL,
                added_at_us INTEGER NOT NULL, updated_at_us INTEGER NOT NULL, PRIMARY KEY (user_id, place_id)) WITHOUT ROWID;
            CREATE TABLE \(t("place_recents")) (user_id TEXT NOT NULL, recent_id TEXT NOT NULL, name TEXT, place TEXT NOT NULL, kind TEXT NOT NULL,
                at_us INTEGER NOT NULL, PRIMARY KEY (user_id, recent_id)) WITHOUT ROWID;
            CREATE INDEX \(t.index("place_recents_newest")) ON \(t("place_recents")) (user_id, at_us DESC, recent_id DESC);
            """)
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let decoded = try PlacesAggregate.eventTypes.decode(event) else { return }
        let (favourites, recents) = (t("place_favourites"), t("place_recents"))
        func id(_ uuid: UUID) -> String { uuid.uuidString.lowercased() }
        for change in PlacesRowChange.changes(decoded) {
            switch change {
            case .addFavourite(let row):
                try db.execute(sql: """
                    INSERT OR REPLACE INTO \(favourites) (user_id, place_id, name, place, added_at_us, updated_at_us) VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [id(row.userId), id(row.placeId), try PlacesRowChange.column(row.name), try PlacesRowChange.column(row.place),
                                     row.addedAt.microsecondsSince1970, row.updatedAt.microsecondsSince1970])
            case let .renameFavourite(user, place, name, at):
                try db.execute(sql: "UPDATE \(favourites) SET name = ?, updated_at_us = ? WHERE user_id = ? AND place_id = ?",
                               arguments: [try PlacesRowChange.column(name), at.microsecondsSince1970, id(user), id(place)])
            case let .removeFavourite(user, place):
                try db.execute(sql: "DELETE FROM \(favourites) WHERE user_id = ? AND place_id = ?", arguments: [id(user), id(place)])
            case .addRecent(let row):
                try db.execute(sql: "INSERT OR REPLACE INTO \(recents) (user_id, recent_id, name, place, kind, at_us) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [id(row.userId), id(row.recentId), try row.name.map(PlacesRowChange.column), try PlacesRowChange.column(row.place),
                                           row.kind.rawValue, row.at.microsecondsSince1970])
            case let .reviseRecent(user, recent, name, kind, at):
                try db.execute(sql: "UPDATE \(recents) SET name = COALESCE(?, name), kind = ?, at_us = ? WHERE user_id = ? AND recent_id = ?",
                               arguments: [try name.map(PlacesRowChange.column), kind.rawValue, at.microsecondsSince1970, id(user), id(recent)])
            case let .removeRecents(user, ids):
                for recent in ids {
                    try db.execute(sql: "DELETE FROM \(recents) WHERE user_id = ? AND recent_id = ?", arguments: [id(user), id(recent)])
                }
            case .clearRecents(let user):
                try db.execute(sql: "DELETE FROM \(recents) WHERE user_id = ?", arguments: [id(user)])
            case .forget(let user):
                try db.execute(sql: "DELETE FROM \(recents) WHERE user_id = ?", arguments: [id(user)])
                try db.execute(sql: "DELETE FROM \(favourites) WHERE user_id = ?", arguments: [id(user)])
            }
        }
    }
}

/// The places read model on PostgreSQL (same tables and fold as SQLite).
public struct PostgresPlacesProjection: PostgresProjection {
    public let name = "places"
    /// Only the places aggregate's events: the session events beside them (a position update per fix) are never read.
    public var eventTypes: Set<String>? { PlacesAggregate.eventTypes.eventTypes }
    public let tables = ["place_favourites", "place_recents"]

    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            """
            CREATE TABLE \(t("place_favourites")) (user_id uuid NOT NULL, place_id uuid NOT NULL, name text NOT NULL, place text NOT NULL,
                added_at_us bigint NOT NULL, updated_at_us bigint NOT NULL, PRIMARY KEY (user_id, place_id))
            """,
            """
            CREATE TABLE \(t("place_recents")) (user_id uuid NOT NULL, recent_id uuid NOT NULL, name text, place text NOT NULL, kind text NOT NULL,
                at_us bigint NOT NULL, PRIMARY KEY (user_id, recent_id))
            """,
            "CREATE INDEX \(t.index("place_recents_newest")) ON \(t("place_recents")) (user_id, at_us DESC, recent_id DESC)",
        ] {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let decoded = try PlacesAggregate.eventTypes.decode(event) else { return }
        let (favourites, recents) = (t("place_favourites"), t("place_recents"))
        let logger = connection.logger
        for change in PlacesRowChange.changes(decoded) {
            switch change {
            case .addFavourite(let row):
                let (name, place) = (try PlacesRowChange.column(row.name), try PlacesRowChange.column(row.place))
                try await connection.query("""
                    INSERT INTO \(unescaped: favourites) (user_id, place_id, name, place, added_at_us, updated_at_us)
                    VALUES (\(row.userId), \(row.placeId), \(name), \(place), \(row.addedAt.microsecondsSince1970), \(row.updatedAt.microsecondsSince1970))
                    ON CONFLICT (user_id, place_id) DO UPDATE SET name = excluded.name, place = excluded.place,
                        added_at_us = excluded.added_at_us, updated_at_us = excluded.updated_at_us
                    """, logger: logger)
            case let .renameFavourite(user, place, name, at):
                let column = try PlacesRowChange.column(name)
                try await connection.query("""
                    UPDATE \(unescaped: favourites) SET name = \(column), updated_at_us = \(at.microsecondsSince1970)
                    WHERE user_id = \(user) AND place_id = \(place)
                    """, logger: logger)
            case let .removeFavourite(user, place):
                try await connection.query("DELETE FROM \(unescaped: favourites) WHERE user_id = \(user) AND place_id = \(place)", logger: logger)
            case .addRecent(let row):
                let (name, place) = (try row.name.map(PlacesRowChange.column), try PlacesRowChange.column(row.place))
                try await connection.query("""
                    INSERT INTO \(unescaped: recents) (user_id, recent_id, name, place, kind, at_us)
                    VALUES (\(row.userId), \(row.recentId), \(name), \(place), \(row.kind.rawValue), \(row.at.microsecondsSince1970))
                    ON CONFLICT (user_id, recent_id) DO UPDATE SET name = excluded.name, place = excluded.place, kind = excluded.kind,
                        at_us = excluded.at_us
                    """, logger: logger)
            case let .reviseRecent(user, recent, name, kind, at):
                let column = try name.map(PlacesRowChange.column)
                try await connection.query("""
                    UPDATE \(unescaped: recents) SET name = COALESCE(\(column), name), kind = \(kind.rawValue), at_us = \(at.microsecondsSince1970)
                    WHERE user_id = \(user) AND recent_id = \(recent)
                    """, logger: logger)
            case let .removeRecents(user, ids):
                for recent in ids {
                    try await connection.query("DELETE FROM \(unescaped: recents) WHERE user_id = \(user) AND recent_id = \(recent)", logger: logger)
                }
            case .clearRecents(let user):
                try await connection.query("DELETE FROM \(unescaped: recents) WHERE user_id = \(user)", logger: logger)
            case .forget(let user):
                try await connection.query("DELETE FROM \(unescaped: recents) WHERE user_id = \(user)", logger: logger)
                try await connection.query("DELETE FROM \(unescaped: favourites) WHERE user_id = \(user)", logger: logger)
            }
        }
    }
}
