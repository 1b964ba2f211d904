import Contracts
import EventSourcing
import Foundation
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

/// Reads of the `reviews` read model, on the store the composition root chose (``SQLiteReviewReadStore``,
/// ``PostgresReviewReadStore``). It trails the log by the projection's poll interval; commands decide on the review
/// streams, never on this.
public struct ReviewCatalog: Sendable {
    let store: any ReviewReadStore

    /// The catalog over `store`.
    public init(store: any ReviewReadStore) {
        self.store = store
    }

    /// Visible reviews of `tour`, newest first (ties by review id), after `cursor`.
    public func page(tour: UUID, after cursor: PageCursor?, limit: Int) async throws -> (rows: [ReviewRow], next: PageCursor?) {
        let rows = try await store.rows(.visible(tour: tour), after: cursor, limit: limit + 1)
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map { PageCursor(key: $0.postedAt.microsecondsSince1970, id: $0.reviewId) } : nil
        return (page, next)
    }

    /// Reported reviews still visible, the longest waiting first.
    public func moderationQueue(after cursor: PageCursor?, limit: Int) async throws -> (rows: [ReviewRow], next: PageCursor?) {
        let rows = try await store.rows(.awaitingModeration, after: cursor, limit: limit + 1)
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit
            ? page.last.map { PageCursor(key: $0.firstReportedAt?.microsecondsSince1970 ?? 0, id: $0.reviewId) } : nil
        return (page, next)
    }

    /// One review, visible or hidden.
    public func review(_ id: UUID) async throws -> ReviewRow? {
        try await store.rows(.review(id), after: nil, limit: 1).first
    }

    /// Every review `user` wrote, visible or hidden.
    public func reviews(by user: UUID) async throws -> [ReviewRow] {
        try await store.rows(.author(user), after: nil, limit: 100_000)
    }

    /// The visible ratings of `tour`.
    public func ratings(tour: UUID) async throws -> ReviewRatings {
        try await store.ratings(tour: tour)
    }
}
