import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// One item of the review queue: a published draft waiting for a decision.
public struct ReviewQueueRow: Codable, Sendable, Hashable {
    public var draftId: UUID
    public var authorId: UUID
    public var name: String
    public var submittedAt: Date
    /// The route's box in degrees (the queue's area filter).
    public var south: Double, west: Double, north: Double, east: Double
    /// The current hold, if any (it may have expired).
    public var claim: ReviewClaim?
    /// The draft stream's version.
    public var version: Int64
    /// `submittedAt` in microseconds as the event recorded it: the queue's sort column and its cursor's key.
    public var sortKey: Int64
}

/// How draft events change the queue (`nil`: the item leaves it); both backends apply exactly this.
enum ReviewQueueFold {
    static func fold(_ existing: ReviewQueueRow?, _ event: PathDraftEvent, version: Int64) -> ReviewQueueRow? {
        switch event {
        case .submitted(let e):
            return ReviewQueueRow(draftId: e.draftId, authorId: e.authorId, name: e.name, submittedAt: e.submittedAt, south: e.south,
                                  west: e.west, north: e.north, east: e.east, claim: nil, version: version,
                                  sortKey: e.submittedAt.microsecondsSince1970)
        case .claimed(let e):
            guard var row = existing else { return nil }
            (row.claim, row.version) = (ReviewClaim(moderatorId: e.moderatorId, expiresAt: e.expiresAt), version)
            return row
        case .decided, .deleted, .pathApproved, .authorErased: return nil
        case .obstacleConfirmed, .obstacleResolved, .conditionReported, .obstacleReported, .statusOverridden, .statusChanged, .retired,
             .obstacleSighted, .obstacleGoneReported:
            return existing
        case .created, .revised: return existing
        case .reviewOpened, .reviewClosed:
            // Twins of `submitted` / `decided` / `authorErased` in the same append: only the version moves.
            guard var row = existing else { return nil }
            row.version = version
            return row
        }
    }

    static func encode(_ row: ReviewQueueRow) throws -> String {
        try PathDraftRowFold.encoded(row)
    }

    static func decode(_ text: String) throws -> ReviewQueueRow {
        try PathDraftRowFold.decoded(ReviewQueueRow.self, text)
    }
}

/// The `review_queue` read model on SQLite: oldest first, filtered by box.
public struct SQLiteReviewQueueProjection: SQLiteProjection {
    public let name = "review_queue"
    public let tables = ["review_queue"]
    public var schemaVersion: Int { 1 }

    /// Creates it.
    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("review_queue")) (draft_id TEXT PRIMARY KEY, submitted_at_us INTEGER NOT NULL, south REAL NOT NULL,
                west REAL NOT NULL, north REAL NOT NULL, east REAL NOT NULL, row TEXT NOT NULL);
            CREATE INDEX \(t.index("review_queue_oldest")) ON \(t("review_queue")) (submitted_at_us, draft_id);
            """)
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let decoded = try PathDraftAggregate.eventTypes.decode(event) else { return }
        let id = PathDraftRowFold.draftId(decoded).uuidString.lowercased()
        let existing = try String.fetchOne(db, sql: "SELECT row FROM \(t("review_queue")) WHERE draft_id = ?", arguments: [id])
            .map(ReviewQueueFold.decode)
        guard let row = ReviewQueueFold.fold(existing, decoded, version: event.streamVersion) else {
            try db.execute(sql: "DELETE FROM \(t("review_queue")) WHERE draft_id = ?", arguments: [id])
            return
        }
        try db.execute(sql: """
            INSERT OR REPLACE INTO \(t("review_queue")) (draft_id, submitted_at_us, south, west, north, east, row) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [id, row.sortKey, row.south, row.west, row.north, row.east, try ReviewQueueFold.encode(row)])
    }
}

/// The `review_queue` read model on PostgreSQL (same table and fold as SQLite).
public struct PostgresReviewQueueProjection: PostgresProjection {
    public let name = "review_queue"
    public let tables = ["review_queue"]
    public var schemaVersion: Int { 1 }

    /// Creates it.
    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            """
            CREATE TABLE \(t("review_queue")) (draft_id uuid PRIMARY KEY, submitted_at_us bigint NOT NULL, south double precision NOT NULL,
                west double precision NOT NULL, north double precision NOT NULL, east double precision NOT NULL, row text NOT NULL)
            """,
            "CREATE INDEX \(t.index("review_queue_oldest")) ON \(t("review_queue")) (submitted_at_us, draft_id)",
        ] {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let decoded = try PathDraftAggregate.eventTypes.decode(event) else { return }
        let id = PathDraftRowFold.draftId(decoded)
        var existing: ReviewQueueRow?
        let select: PostgresQuery = "SELECT row FROM \(unescaped: t("review_queue")) WHERE draft_id = \(id)"
        for try await (text) in try await connection.query(select, logger: connection.logger).decode(String.self) {
            existing = try ReviewQueueFold.decode(text)
        }
        guard let row = ReviewQueueFold.fold(existing, decoded, version: event.streamVersion) else {
            try await connection.query("DELETE FROM \(unescaped: t("review_queue")) WHERE draft_id = \(id)", logger: connection.logger)
            return
        }
        let encoded = try ReviewQueueFold.encode(row)
        try await connection.query("""
            INSERT INTO \(unescaped: t("review_queue")) (draft_id, submitted_at_us, south, west, north, east, row)
            VALUES (\(id), \(row.sortKey), \(row.south), \(row.west), \(row.north), \(row.east), \(encoded))
            ON CONFLICT (draft_id) DO UPDATE SET row = excluded.row
            """, logger: connection.logger)
    }
}
