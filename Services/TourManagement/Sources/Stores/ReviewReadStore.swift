import ServiceKit
import Foundation

/// Which rows of `reviews` a read selects, and in which order its keyset pages run.
public enum ReviewSelection: Sendable, Hashable {
    /// Visible reviews of a tour, newest first (ties by review id).
    case visible(tour: UUID)
    /// Reported reviews still visible, the longest waiting first.
    case awaitingModeration
    /// One review, visible or hidden.
    case review(UUID)
    /// Every review of an author, visible or hidden, oldest first.
    case author(UUID)

    /// The `ORDER BY` list.
    var order: String {
        switch self {
        case .visible: "posted_at_us DESC, review_id"
        case .awaitingModeration: "reported_at_us, review_id"
        case .review: "review_id"
        case .author: "posted_at_us, review_id"
        }
    }

    /// The column a ``PageCursor`` continues after, and whether it runs descending; `nil` for unpaged reads.
    var cursorKey: (column: String, descending: Bool)? {
        switch self {
        case .visible: ("posted_at_us", true)
        case .awaitingModeration: ("reported_at_us", false)
        case .review, .author: nil
        }
    }

    /// The one id the selection filters on, if any.
    var value: UUID? {
        switch self {
        case .visible(let tour): tour
        case .review(let id), .author(let id): id
        case .awaitingModeration: nil
        }
    }
}

/// The reads of the `reviews` read model (``ReviewsProjection``'s tables) behind ``ReviewCatalog``.
public protocol ReviewReadStore: Sendable {
    /// Rows of `selection` after `cursor` (on its ``ReviewSelection/cursorKey``), at most `limit`.
    func rows(_ selection: ReviewSelection, after cursor: PageCursor?, limit: Int) async throws -> [ReviewRow]
    /// The visible ratings of `tour` (all zero when it has none).
    func ratings(tour: UUID) async throws -> ReviewRatings
}
