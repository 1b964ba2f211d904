import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// One row of the `reviews` read model. Text and reply stay sealed (`SealedPersonalData`): they are opened when read,
/// so no plain text rests in the read model and an erased person's words vanish the moment their key is destroyed —
/// also a guide's replies, for which no event follows the erasure.
public struct ReviewRow: Sendable, Hashable, Codable {
    public var reviewId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    public var rating: Int
    public var text: SealedPersonalData?
    public var postedAt: Date
    public var editedAt: Date?
    public var reply: SealedPersonalData?
    public var repliedAt: Date?
    public var hidden: Bool
    public var hiddenReason: String?
    public var hiddenBy: UUID?
    public var hiddenAt: Date?
    /// Reports received, and how many per reason.
    public var reports: Int
    public var reportReasons: [String: Int]
    public var firstReportedAt: Date?
    public var lastReportedAt: Date?

    /// Waiting for a moderator: reported and still visible.
    public var awaitsModeration: Bool { reports > 0 && !hidden }
}

/// How review events change a `reviews` row and the per-tour histogram; both backends apply exactly this.
enum ReviewFold {
    static func fold(_ existing: ReviewRow?, _ event: ReviewEvent) -> ReviewRow? {
        switch event {
        case .posted(let e):
            return ReviewRow(reviewId: e.reviewId, tourId: e.tourId, userId: e.userId, guideId: e.guideId, rating: e.rating, text: e.text,
                             postedAt: e.postedAt, editedAt: nil, reply: nil, repliedAt: nil, hidden: false, hiddenReason: nil, hiddenBy: nil,
                             hiddenAt: nil, reports: 0, reportReasons: [:], firstReportedAt: nil, lastReportedAt: nil)
        case .edited(let e):
            guard var row = existing else { return nil }
            row.rating = e.rating
            row.text = e.text
            row.editedAt = e.editedAt
            return row
        case .replied(let e):
            guard var row = existing else { return nil }
            row.reply = e.reply
            row.repliedAt = e.repliedAt
            return row
        case .reported(let e):
            guard var row = existing else { return nil }
            row.reports += 1
            row.reportReasons[e.reason, default: 0] += 1
            row.firstReportedAt = row.firstReportedAt ?? e.reportedAt
            row.lastReportedAt = e.reportedAt
            return row
        case .hidden(let e):
            guard var row = existing else { return nil }
            row.hidden = true
            row.hiddenReason = e.reason
            row.hiddenBy = e.hiddenBy
            row.hiddenAt = e.hiddenAt
            return row
        }
    }

    static func reviewId(_ event: ReviewEvent) -> UUID {
        switch event {
        case .posted(let e): e.reviewId
        case .edited(let e): e.reviewId
        case .replied(let e): e.reviewId
        case .reported(let e): e.reviewId
        case .hidden(let e): e.reviewId
        }
    }

    /// Histogram changes per rating (index 0 = rating 1) between the visible rating before and after.
    static func histogramDelta(from old: ReviewRow?, to new: ReviewRow) -> [Int] {
        var delta = [0, 0, 0, 0, 0]
        if let old, !old.hidden, ReviewAggregate.ratings.contains(old.rating) { delta[old.rating - 1] -= 1 }
        if !new.hidden, ReviewAggregate.ratings.contains(new.rating) { delta[new.rating - 1] += 1 }
        return delta
    }

    static func encode(_ row: ReviewRow) throws -> String {
        String(decoding: try encoder.encode(row), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> ReviewRow {
        try JSONDecoder().decode(ReviewRow.self, from: Data(text.utf8))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    static let histogramColumns = ["count_1", "count_2", "count_3", "count_4", "count_5"]
}

/// The `reviews` read model on SQLite: `reviews` (one row per review, the row as JSON plus the columns lists and the
/// moderation queue use) and `review_ratings` (per tour, visible reviews per rating).
public struct SQLiteReviewsProjection: SQLiteProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { ReviewAggregate.eventTypes.eventTypes }

    public let name = "reviews"
    public let tables = ["reviews", "review_ratings"]

    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("reviews")) (review_id TEXT PRIMARY KEY, tour_id TEXT NOT NULL, user_id TEXT NOT NULL, visible INTEGER NOT NULL,
                awaits_moderation INTEGER NOT NULL, posted_at_us INTEGER NOT NULL, reported_at_us INTEGER, row TEXT NOT NULL);
            CREATE INDEX \(t.index("reviews_by_tour")) ON \(t("reviews")) (tour_id, posted_at_us DESC, review_id) WHERE visible = 1;
            CREATE INDEX \(t.index("reviews_by_user")) ON \(t("reviews")) (user_id);
            CREATE INDEX \(t.index("reviews_moderation")) ON \(t("reviews")) (reported_at_us, review_id) WHERE awaits_moderation = 1;
            CREATE TABLE \(t("review_ratings")) (tour_id TEXT PRIMARY KEY, count_1 INTEGER NOT NULL, count_2 INTEGER NOT NULL,
                count_3 INTEGER NOT NULL, count_4 INTEGER NOT NULL, count_5 INTEGER NOT NULL);
            """)
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let decoded = try ReviewAggregate.eventTypes.decode(event) else { return }
        let id = ReviewFold.reviewId(decoded).uuidString.lowercased()
        let existing = try String.fetchOne(db, sql: "SELECT row FROM \(t("reviews")) WHERE review_id = ?", arguments: [id]).map(ReviewFold.decode)
        guard let row = ReviewFold.fold(existing, decoded), row != existing else { return }
        try db.execute(sql: """
            INSERT OR REPLACE INTO \(t("reviews")) (review_id, tour_id, user_id, visible, awaits_moderation, posted_at_us, reported_at_us, row)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [id, row.tourId.uuidString.lowercased(), row.userId.uuidString.lowercased(), !row.hidden, row.awaitsModeration,
                             row.postedAt.microsecondsSince1970, row.firstReportedAt?.microsecondsSince1970, try ReviewFold.encode(row)])
        let delta = ReviewFold.histogramDelta(from: existing, to: row)
        guard delta.contains(where: { $0 != 0 }) else { return }
        let columns = ReviewFold.histogramColumns
        try db.execute(sql: """
            INSERT INTO \(t("review_ratings")) (tour_id, \(columns.joined(separator: ", "))) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (tour_id) DO UPDATE SET \(columns.map { "\($0) = \($0) + excluded.\($0)" }.joined(separator: ", "))
            """, arguments: [row.tourId.uuidString.lowercased(), delta[0], delta[1], delta[2], delta[3], delta[4]])
    }
}

/// The `reviews` read model on PostgreSQL (same tables and fold as SQLite).
public struct PostgresReviewsProjection: PostgresProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { ReviewAggregate.eventTypes.eventTypes }

    public let name = "reviews"
    public let tables = ["reviews", "review_ratings"]

    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            """
            CREATE TABLE \(t("reviews")) (review_id uuid PRIMARY KEY, tour_id uuid NOT NULL, user_id uuid NOT NULL, visible boolean NOT NULL,
                awaits_moderation boolean NOT NULL, posted_at_us bigint NOT NULL, reported_at_us bigint, row text NOT NULL)
            """,
            "CREATE INDEX \(t.index("reviews_by_tour")) ON \(t("reviews")) (tour_id, posted_at_us DESC, review_id) WHERE visible",
            "CREATE INDEX \(t.index("reviews_by_user")) ON \(t("reviews")) (user_id)",
            "CREATE INDEX \(t.index("reviews_moderation")) ON \(t("reviews")) (reported_at_us, review_id) WHERE awaits_moderation",
            """
            CREATE TABLE \(t("review_ratings")) (tour_id uuid PRIMARY KEY, count_1 int NOT NULL, count_2 int NOT NULL, count_3 int NOT NULL,
                count_4 int NOT NULL, count_5 int NOT NULL)
            """,
        ] {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let decoded = try ReviewAggregate.eventTypes.decode(event) else { return }
        let id = ReviewFold.reviewId(decoded)
        var existing: ReviewRow?
        let select: PostgresQuery = "SELECT row FROM \(unescaped: t("reviews")) WHERE review_id = \(id)"
        for try await (text) in try await connection.query(select, logger: connection.logger).decode(String.self) {
            existing = try ReviewFold.decode(text)
        }
        guard let row = ReviewFold.fold(existing, decoded), row != existing else { return }
        let encoded = try ReviewFold.encode(row)
        try await connection.query("""
            INSERT INTO \(unescaped: t("reviews")) (review_id, tour_id, user_id, visible, awaits_moderation, posted_at_us, reported_at_us, row)
            VALUES (\(id), \(row.tourId), \(row.userId), \(!row.hidden), \(row.awaitsModeration), \(row.postedAt.microsecondsSince1970),
                \(row.firstReportedAt?.microsecondsSince1970), \(encoded))
            ON CONFLICT (review_id) DO UPDATE SET visible = excluded.visible, awaits_moderation = excluded.awaits_moderation,
                posted_at_us = excluded.posted_at_us, reported_at_us = excluded.reported_at_us, row = excluded.row
            """, logger: connection.logger)
        let delta = ReviewFold.histogramDelta(from: existing, to: row)
        guard delta.contains(where: { $0 != 0 }) else { return }
        let columns = ReviewFold.histogramColumns
        let counts = delta.map { Int32($0) }
        let updates = columns.map { "\($0) = \(t("review_ratings")).\($0) + excluded.\($0)" }.joined(separator: ", ")
        try await connection.query("""
            INSERT INTO \(unescaped: t("review_ratings")) (tour_id, \(unescaped: columns.joined(separator: ", ")))
            VALUES (\(row.tourId), \(counts[0]), \(counts[1]), \(counts[2]), \(counts[3]), \(counts[4]))
            ON CONFLICT (tour_id) DO UPDATE SET \(unescaped: updates)
            """, logger: connection.logger)
    }
}
