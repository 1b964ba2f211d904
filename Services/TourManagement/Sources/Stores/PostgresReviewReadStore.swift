import ServiceKit
import EventSourcing
import Foundation
import PostgresNIO

/// ``ReviewReadStore`` in the service's PostgreSQL database.
public struct PostgresReviewReadStore: ReviewReadStore {
    let database: PostgresServiceDatabase

    /// The reads of `database`'s `reviews` read model.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func rows(_ selection: ReviewSelection, after cursor: PageCursor?, limit: Int) async throws -> [ReviewRow] {
        let query: PostgresQuery = switch (selection, cursor) {
        case (.visible(let tour), let cursor?): """
            SELECT row FROM reviews WHERE tour_id = \(tour) AND visible
                AND (posted_at_us < \(cursor.key) OR (posted_at_us = \(cursor.key) AND review_id > \(cursor.id)))
            ORDER BY posted_at_us DESC, review_id LIMIT \(limit)
            """
        case (.visible(let tour), nil):
            "SELECT row FROM reviews WHERE tour_id = \(tour) AND visible ORDER BY posted_at_us DESC, review_id LIMIT \(limit)"
        case (.awaitingModeration, let cursor?): """
            SELECT row FROM reviews WHERE awaits_moderation
                AND (reported_at_us > \(cursor.key) OR (reported_at_us = \(cursor.key) AND review_id > \(cursor.id)))
            ORDER BY reported_at_us, review_id LIMIT \(limit)
            """
        case (.awaitingModeration, nil):
            "SELECT row FROM reviews WHERE awaits_moderation ORDER BY reported_at_us, review_id LIMIT \(limit)"
        case (.review(let id), _):
            "SELECT row FROM reviews WHERE review_id = \(id) ORDER BY review_id LIMIT \(limit)"
        case (.author(let user), _):
            "SELECT row FROM reviews WHERE user_id = \(user) ORDER BY posted_at_us, review_id LIMIT \(limit)"
        }
        var result: [ReviewRow] = []
        for try await (text) in try await database.client.query(query, logger: database.logger).decode(String.self) {
            result.append(try ReviewFold.decode(text))
        }
        return result
    }

    public func ratings(tour: UUID) async throws -> ReviewRatings {
        let columns = ReviewFold.histogramColumns.joined(separator: ", ")
        let query: PostgresQuery = "SELECT \(unescaped: columns) FROM review_ratings WHERE tour_id = \(tour)"
        for try await (c1, c2, c3, c4, c5) in try await database.client.query(query, logger: database.logger)
            .decode((Int32, Int32, Int32, Int32, Int32).self) {
            return ReviewRatings(histogram: [c1, c2, c3, c4, c5].map(Int.init))
        }
        return ReviewRatings()
    }
}
