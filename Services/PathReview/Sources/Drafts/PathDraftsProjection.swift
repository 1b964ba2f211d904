import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// One draft as the `path_drafts` read model keeps it: what "list mine" shows (no geometry: that is read from the
/// draft's stream when one draft is opened).
public struct PathDraftRow: Codable, Sendable, Hashable {
    public var draftId: UUID
    public var authorId: UUID
    public var name: String
    public var condition: PathCondition
    public var lengthMetres: Double
    public var obstacleCount: Int
    public var createdAt: Date
    public var updatedAt: Date
    /// The draft stream's version this row reflects (the `ETag` a client sends back as `If-Match`).
    public var version: Int64
    /// Where it stands in review (`nil`: a draft).
    public var stage: PathDraftStage?
    /// `updatedAt` in microseconds as the event recorded it: the list's sort column and its cursor's key (the same
    /// integer in both, whatever precision the row's JSON keeps of the date).
    public var sortKey: Int64
    /// How it began (`nil`: manual).
    public var source: PathDraftSource? = nil
}

/// How draft events change a `path_drafts` row (`nil`: the row goes); both backends apply exactly this.
enum PathDraftRowFold {
    static func fold(_ existing: PathDraftRow?, _ event: PathDraftEvent, version: Int64) -> PathDraftRow? {
        switch event {
        case .created(let e):
            return PathDraftRow(draftId: e.draftId, authorId: e.authorId, name: e.content.name, condition: e.content.condition,
                                lengthMetres: e.content.route.lengthMetres, obstacleCount: e.content.obstacles.count,
                                createdAt: e.createdAt, updatedAt: e.createdAt, version: version, stage: nil,
                                sortKey: e.createdAt.microsecondsSince1970, source: e.source)
        case .revised(let e):
            guard var row = existing else { return nil }
            (row.name, row.condition, row.lengthMetres, row.obstacleCount, row.updatedAt, row.version) =
                (e.content.name, e.content.condition, e.content.route.lengthMetres, e.content.obstacles.count, e.revisedAt, version)
            row.sortKey = e.revisedAt.microsecondsSince1970
            return row
        case .deleted, .authorErased:
            return nil
        case .obstacleConfirmed, .obstacleResolved, .conditionReported, .obstacleReported, .statusOverridden, .statusChanged, .retired,
             .obstacleSighted, .obstacleGoneReported:
            return existing
        case .reviewOpened, .reviewClosed:
            // Twins of `submitted` / `decided` / `authorErased` in the same append: only the version moves.
            guard var row = existing else { return nil }
            row.version = version
            return row
        case .submitted, .claimed, .decided, .pathApproved:
            guard var row = existing else { return nil }
            row.version = version
            row.stage = PathDraftAggregate.applyReview(stateOf(row), event).currentStage
            return row
        }
    }

    /// Just enough state for the review fold: the stage the row shows.
    private static func stateOf(_ row: PathDraftRow) -> PathDraftState {
        var state = PathDraftState()
        state.stage = row.stage
        return state
    }

    static func draftId(_ event: PathDraftEvent) -> UUID {
        switch event {
        case .created(let e): e.draftId
        case .revised(let e): e.draftId
        case .deleted(let e): e.draftId
        case .submitted(let e): e.draftId
        case .claimed(let e): e.draftId
        case .decided(let e): e.draftId
        case .pathApproved(let e): e.pathId
        case .obstacleConfirmed(let e): e.pathId
        case .obstacleResolved(let e): e.pathId
        case .conditionReported(let e): e.pathId
        case .obstacleReported(let e): e.pathId
        case .statusOverridden(let e): e.pathId
        case .statusChanged(let e): e.pathId
        case .retired(let e): e.pathId
        case .authorErased(let e): e.draftId
        case .obstacleSighted(let e): e.pathId
        case .obstacleGoneReported(let e): e.pathId
        case .reviewOpened(let e): e.draftId
        case .reviewClosed(let e): e.draftId
        }
    }

    static func encode(_ row: PathDraftRow) throws -> String {
        try encoded(row)
    }

    static func decode(_ text: String) throws -> PathDraftRow {
        try decoded(PathDraftRow.self, text)
    }

    /// A read-model row as stored: JSON, sorted keys, dates in milliseconds (both read models of this service).
    static func encoded(_ row: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return String(decoding: try encoder.encode(row), as: UTF8.self)
    }

    static func decoded<Row: Decodable>(_ type: Row.Type, _ text: String) throws -> Row {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(Row.self, from: Data(text.utf8))
    }
}

/// The `path_drafts` read model on SQLite: one row per live draft, listed by author, most recently changed first.
public struct SQLitePathDraftsProjection: SQLiteProjection {
    public let name = "path_drafts"
    public let tables = ["path_drafts"]
    /// 2: rows carry the review stage.
    public var schemaVersion: Int { 2 }

    /// Creates it.
    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("path_drafts")) (draft_id TEXT PRIMARY KEY, author_id TEXT NOT NULL, updated_at_us INTEGER NOT NULL, row TEXT NOT NULL);
            CREATE INDEX \(t.index("path_drafts_by_author")) ON \(t("path_drafts")) (author_id, updated_at_us DESC, draft_id DESC);
            """)
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let decoded = try PathDraftAggregate.eventTypes.decode(event) else { return }
        let id = PathDraftRowFold.draftId(decoded).uuidString.lowercased()
        let existing = try String.fetchOne(db, sql: "SELECT row FROM \(t("path_drafts")) WHERE draft_id = ?", arguments: [id])
            .map(PathDraftRowFold.decode)
        guard let row = PathDraftRowFold.fold(existing, decoded, version: event.streamVersion) else {
            try db.execute(sql: "DELETE FROM \(t("path_drafts")) WHERE draft_id = ?", arguments: [id])
            return
        }
        try db.execute(sql: "INSERT OR REPLACE INTO \(t("path_drafts")) (draft_id, author_id, updated_at_us, row) VALUES (?, ?, ?, ?)",
                       arguments: [id, row.authorId.uuidString.lowercased(), row.sortKey, try PathDraftRowFold.encode(row)])
    }
}

/// The `path_drafts` read model on PostgreSQL (same table and fold as SQLite).
public struct PostgresPathDraftsProjection: PostgresProjection {
    public let name = "path_drafts"
    public let tables = ["path_drafts"]
    /// 2: rows carry the review stage.
    public var schemaVersion: Int { 2 }

    /// Creates it.
    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            "CREATE TABLE \(t("path_drafts")) (draft_id uuid PRIMARY KEY, author_id uuid NOT NULL, updated_at_us bigint NOT NULL, row text NOT NULL)",
            "CREATE INDEX \(t.index("path_drafts_by_author")) ON \(t("path_drafts")) (author_id, updated_at_us DESC, draft_id DESC)",
        ] {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let decoded = try PathDraftAggregate.eventTypes.decode(event) else { return }
        let id = PathDraftRowFold.draftId(decoded)
        var existing: PathDraftRow?
        let select: PostgresQuery = "SELECT row FROM \(unescaped: t("path_drafts")) WHERE draft_id = \(id)"
        for try await (text) in try await connection.query(select, logger: connection.logger).decode(String.self) {
            existing = try PathDraftRowFold.decode(text)
        }
        guard let row = PathDraftRowFold.fold(existing, decoded, version: event.streamVersion) else {
            try await connection.query("DELETE FROM \(unescaped: t("path_drafts")) WHERE draft_id = \(id)", logger: connection.logger)
            return
        }
        let encoded = try PathDraftRowFold.encode(row)
        try await connection.query("""
            INSERT INTO \(unescaped: t("path_drafts")) (draft_id, author_id, updated_at_us, row)
            VALUES (\(id), \(row.authorId), \(row.sortKey), \(encoded))
            ON CONFLICT (draft_id) DO UPDATE SET updated_at_us = excluded.updated_at_us, row = excluded.row
            """, logger: connection.logger)
    }
}
