import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO
import ServiceKit

/// A tour's visible ratings: how many of each star, and what lists and sorts show.
public struct ReviewRatings: Sendable, Hashable {
    /// Visible reviews per rating; index 0 is 1 star.
    public var histogram: [Int]

    public init(histogram: [Int] = [0, 0, 0, 0, 0]) {
        self.histogram = histogram
    }

    public var count: Int { histogram.reduce(0, +) }
    public var sum: Int { histogram.enumerated().reduce(0) { $0 + ($1.offset + 1) * $1.element } }
    /// The same numbers discovery keeps (`TourRating`: plain average, Bayesian average with prior 3.5 × 5).
    public var rating: TourRating { TourRating(count: count, sum: sum) }
}

/// Where a keyset page ends: the sort key (microseconds) and the id that breaks ties. Opaque to clients (base64url).
public struct PageCursor: Sendable, Hashable, Codable {
    public var key: Int64
    public var id: UUID

    public init(key: Int64, id: UUID) {
        self.key = key
        self.id = id
    }

    public var encoded: String { Base64URL.encode(Data("\(key):\(id.uuidString.lowercased())".utf8)) }

    public init?(encoded: String) {
        guard let data = Base64URL.decode(encoded), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let key = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else { return nil }
        self.init(key: key, id: id)
    }
}

/// Reads of the `reviews` read model, whichever backend. It trails the log by the projection's poll interval; commands
/// decide on the review streams, never on this.
public struct ReviewCatalog: Sendable {
    let sqlite: SQLiteServiceDatabase?
    let postgres: PostgresServiceDatabase?

    public init(sqlite: SQLiteServiceDatabase?, postgres: PostgresServiceDatabase?) {
        self.sqlite = sqlite
        self.postgres = postgres
    }

    /// Visible reviews of `tour`, newest first (ties by review id), after `cursor`.
    public func page(tour: UUID, after cursor: PageCursor?, limit: Int) async throws -> (rows: [ReviewRow], next: PageCursor?) {
        let rows = try await rows(
            sqlite: "tour_id = ? AND visible = 1", postgres: "tour_id = $1 AND visible", order: "posted_at_us DESC, review_id",
            key: "posted_at_us", descending: true, value: tour, cursor: cursor, limit: limit + 1)
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map { PageCursor(key: $0.postedAt.microsecondsSince1970, id: $0.reviewId) } : nil
        return (page, next)
    }

    /// Reported reviews still visible, the longest waiting first.
    public func moderationQueue(after cursor: PageCursor?, limit: Int) async throws -> (rows: [ReviewRow], next: PageCursor?) {
        let rows = try await rows(
            sqlite: "awaits_moderation = 1", postgres: "awaits_moderation", order: "reported_at_us, review_id",
            key: "reported_at_us", descending: false, value: nil, cursor: cursor, limit: limit + 1)
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit
            ? page.last.map { PageCursor(key: $0.firstReportedAt?.microsecondsSince1970 ?? 0, id: $0.reviewId) } : nil
        return (page, next)
    }

    /// One review, visible or hidden.
    public func review(_ id: UUID) async throws -> ReviewRow? {
        try await rows(sqlite: "review_id = ?", postgres: "review_id = $1", order: "review_id", key: nil, descending: false, value: id,
                       cursor: nil, limit: 1).first
    }

    /// Every review `user` wrote, visible or hidden.
    public func reviews(by user: UUID) async throws -> [ReviewRow] {
        try await rows(sqlite: "user_id = ?", postgres: "user_id = $1", order: "posted_at_us, review_id", key: nil, descending: false,
                       value: user, cursor: nil, limit: 100_000)
    }

    /// The visible ratings of `tour`.
    public func ratings(tour: UUID) async throws -> ReviewRatings {
        let columns = ReviewFold.histogramColumns.joined(separator: ", ")
        if let sqlite {
            return try await sqlite.read { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT \(columns) FROM review_ratings WHERE tour_id = ?",
                                                 arguments: [tour.uuidString.lowercased()]) else { return ReviewRatings() }
                return ReviewRatings(histogram: (0..<5).map { row[$0] })
            }
        }
        var query = PostgresQuery(unsafeSQL: "SELECT \(columns) FROM review_ratings WHERE tour_id = $1")
        query.binds.append(tour)
        for try await (c1, c2, c3, c4, c5) in try await postgres!.client.query(query, logger: postgres!.logger)
            .decode((Int32, Int32, Int32, Int32, Int32).self) {
            return ReviewRatings(histogram: [c1, c2, c3, c4, c5].map(Int.init))
        }
        return ReviewRatings()
    }

    /// Rows matching `condition` (one `value` placeholder, or none), in `order`, after `cursor` on `key`.
    private func rows(sqlite condition: String, postgres pgCondition: String, order: String, key: String?, descending: Bool, value: UUID?,
                      cursor: PageCursor?, limit: Int) async throws -> [ReviewRow] {
        if let sqlite {
            var sql = "SELECT row FROM reviews WHERE \(condition)"
            var arguments: StatementArguments = value.map { [$0.uuidString.lowercased()] } ?? []
            if let key, let cursor {
                sql += " AND (\(key) \(descending ? "<" : ">") ? OR (\(key) = ? AND review_id > ?))"
                arguments += [cursor.key, cursor.key, cursor.id.uuidString.lowercased()]
            }
            sql += " ORDER BY \(order) LIMIT \(limit)"
            let (statement, binds) = (sql, arguments)
            return try await sqlite.read { db in try String.fetchAll(db, sql: statement, arguments: binds).map(ReviewFold.decode) }
        }
        var sql = "SELECT row FROM reviews WHERE \(pgCondition)"
        var binds = PostgresBindings()
        if let value { binds.append(value) }
        if let key, let cursor {
            let n = binds.count
            sql += " AND (\(key) \(descending ? "<" : ">") $\(n + 1) OR (\(key) = $\(n + 1) AND review_id > $\(n + 2)))"
            binds.append(cursor.key)
            binds.append(cursor.id)
        }
        sql += " ORDER BY \(order) LIMIT \(limit)"
        var result: [ReviewRow] = []
        for try await (text) in try await postgres!.client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: postgres!.logger)
            .decode(String.self) {
            result.append(try ReviewFold.decode(text))
        }
        return result
    }
}
