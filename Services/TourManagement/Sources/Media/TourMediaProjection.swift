import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// Which media each tour refers to: its working copy's stops and its last published revision (which owners keep using
/// after an unpublication). Tables `tour_media_state (tour_id, state JSON)` and `tour_media_refs (tour_id, sha256)`;
/// the media garbage collector releases catalog entries that no `tour_media_refs` row names any more
/// (``MediaCatalog/releaseDropped(referencedBefore:now:)``).
struct TourMediaState: Codable, Equatable {
    /// Stop id → media addresses of that stop in the working copy.
    var working: [UUID: [String]] = [:]
    /// Media addresses of the last published revision.
    var published: [String] = []

    var references: Set<String> { Set(working.values.joined()).union(published) }

    /// The state after `event`; `nil` for events that do not concern media.
    static func fold(_ state: TourMediaState, _ event: TourEvent) -> TourMediaState? {
        var state = state
        switch event {
        case .drafted: return TourMediaState()
        case .stopAdded(let e): state.working[e.stop.stopId] = e.stop.media.map(\.sha256)
        case .stopChanged(let e): state.working[e.stop.stopId] = e.stop.media.map(\.sha256)
        case .stopRemoved(let e): state.working[e.stopId] = nil
        case .mediaAttached(let e): state.working[e.stopId, default: []].append(e.media.sha256)
        case .published(let e): state.published = e.stops.flatMap { $0.media.map(\.sha256) }
        case .draftExpired, .deleted: state.working = [:]
        case .detailsChanged, .stopsReordered, .unpublished: return nil
        }
        return state
    }

    static func tourId(_ event: TourEvent) -> UUID {
        switch event {
        case .drafted(let e): e.tourId
        case .detailsChanged(let e): e.tourId
        case .stopAdded(let e): e.tourId
        case .stopChanged(let e): e.tourId
        case .stopsReordered(let e): e.tourId
        case .stopRemoved(let e): e.tourId
        case .mediaAttached(let e): e.tourId
        case .published(let e): e.tourId
        case .unpublished(let e): e.tourId
        case .draftExpired(let e): e.tourId
        case .deleted(let e): e.tourId
        }
    }

    static func encoded(_ state: TourMediaState) throws -> String {
        String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
    }

    static func decoded(_ text: String?) throws -> TourMediaState {
        guard let text else { return TourMediaState() }
        return try JSONDecoder().decode(TourMediaState.self, from: Data(text.utf8))
    }
}

public struct SQLiteTourMediaProjection: SQLiteProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { TourAggregate.eventTypes.eventTypes }

    public let name = "tour_media"
    public let tables = ["tour_media_state", "tour_media_refs"]

    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("tour_media_state")) (tour_id TEXT PRIMARY KEY, state TEXT NOT NULL);
            CREATE TABLE \(t("tour_media_refs")) (tour_id TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (tour_id, sha256));
            CREATE INDEX \(t.index("tour_media_refs_sha256")) ON \(t("tour_media_refs")) (sha256);
            """)
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let decoded = try TourAggregate.eventTypes.decode(event) else { return }
        let id = TourMediaState.tourId(decoded).uuidString.lowercased()
        let stored = try String.fetchOne(db, sql: "SELECT state FROM \(t("tour_media_state")) WHERE tour_id = ?", arguments: [id])
        guard let state = TourMediaState.fold(try TourMediaState.decoded(stored), decoded) else { return }
        try db.execute(sql: "INSERT OR REPLACE INTO \(t("tour_media_state")) (tour_id, state) VALUES (?, ?)",
                       arguments: [id, try TourMediaState.encoded(state)])
        try db.execute(sql: "DELETE FROM \(t("tour_media_refs")) WHERE tour_id = ?", arguments: [id])
        for sha256 in state.references {
            try db.execute(sql: "INSERT INTO \(t("tour_media_refs")) (tour_id, sha256) VALUES (?, ?)", arguments: [id, sha256])
        }
    }
}

public struct PostgresTourMediaProjection: PostgresProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { TourAggregate.eventTypes.eventTypes }

    public let name = "tour_media"
    public let tables = ["tour_media_state", "tour_media_refs"]

    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            "CREATE TABLE \(t("tour_media_state")) (tour_id uuid PRIMARY KEY, state text NOT NULL)",
            "CREATE TABLE \(t("tour_media_refs")) (tour_id uuid NOT NULL, sha256 text NOT NULL, PRIMARY KEY (tour_id, sha256))",
            "CREATE INDEX \(t.index("tour_media_refs_sha256")) ON \(t("tour_media_refs")) (sha256)",
        ] {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let decoded = try TourAggregate.eventTypes.decode(event) else { return }
        let id = TourMediaState.tourId(decoded)
        let select: PostgresQuery = "SELECT state FROM \(unescaped: t("tour_media_state")) WHERE tour_id = \(id)"
        var stored: String?
        for try await (text) in try await connection.query(select, logger: connection.logger).decode(String.self) { stored = text }
        guard let state = TourMediaState.fold(try TourMediaState.decoded(stored), decoded) else { return }
        let encoded = try TourMediaState.encoded(state)
        try await connection.query("""
            INSERT INTO \(unescaped: t("tour_media_state")) (tour_id, state) VALUES (\(id), \(encoded))
            ON CONFLICT (tour_id) DO UPDATE SET state = excluded.state
            """, logger: connection.logger)
        try await connection.query("DELETE FROM \(unescaped: t("tour_media_refs")) WHERE tour_id = \(id)", logger: connection.logger)
        let references = state.references.sorted()
        guard !references.isEmpty else { return }
        try await connection.query("INSERT INTO \(unescaped: t("tour_media_refs")) (tour_id, sha256) SELECT \(id), unnest(\(references)::text[])",
                                   logger: connection.logger)
    }
}
