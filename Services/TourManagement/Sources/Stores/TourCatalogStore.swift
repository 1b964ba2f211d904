import Foundation
import Geo

/// How a search matches its text (``TourCatalog`` decides which, from ``TourCatalogStore/estimatedMatches(exact:prefix:)``).
public enum DiscoveryTextMatch: Sendable, Hashable {
    /// Selective text: the full-text index finds the matches, ordered by text rank when the search sorts by it.
    case ranked(String)
    /// Broad text: the sort's index is walked and each tour's stored words are probed (``DiscoveryText/wordProbes(_:)``).
    case probed(String)
}

/// What a search page is ordered by; ties are broken by tour id, ascending.
public enum DiscoveryOrder: Sendable, Hashable {
    /// Text rank of a ``DiscoveryTextMatch/ranked(_:)`` match, best first.
    case textRank
    case rating
    case popularity
    /// Distance from the filter's `near` centre (0 for every tour without one).
    case distance
    case price
    case newest

    /// Whether the largest key comes first.
    public var descending: Bool {
        switch self {
        case .rating, .popularity, .newest: true
        case .textRank, .distance, .price: false
        }
    }

    /// Whether the key is computed per row (rank, distance) rather than read from an indexed column.
    public var isComputed: Bool {
        self == .textRank || self == .distance
    }
}

/// One page query of a search, planned by ``TourCatalog``: which tours, in which order, from where.
public struct DiscoverySearch: Sendable {
    /// The filters other than text (`filter.text` is ignored: see `text`).
    public var filter: DiscoveryFilter
    public var text: DiscoveryTextMatch?
    public var order: DiscoveryOrder
    /// Keyset position: rows after this sort key (in `order`'s direction), ties after this tour id.
    public var after: (key: Double, tourId: UUID)?
    /// Rows skipped first (relevance pages).
    public var offset: Int
    /// The page size; the store reads one row more to tell whether there is another page.
    public var limit: Int

}

/// One row of a search page: the tour (a summary: `stops` empty), its sort key and its distance from `near`.
public struct DiscoveryRow: Sendable, Hashable {
    public var tour: PublishedTour
    public var sortKey: Double
    public var distance: Double?
}

/// The reads of the discovery read model (``SQLiteDiscoveryProjection`` / ``PostgresDiscoveryProjection``'s tables)
/// behind ``TourCatalog``: every store writes its own dialect, and a filter means the same on both (the conformance
/// suite `DiscoveryReadModelTests` runs the same searches against both).
public protocol TourCatalogStore: Sendable {
    /// The last published revision of a tour, only while listed unless `includeUnlisted`.
    func tour(_ id: UUID, includeUnlisted: Bool) async throws -> PublishedTour?
    /// The listed tours among `ids` (summaries, `stops` empty).
    func listedTours(_ ids: [UUID]) async throws -> [PublishedTour]
    /// Completed purchases and acquisitions of listed tours, per destination (destinations with none left out).
    func popularityByDestination() async throws -> [Int64: Int]
    /// The smallest count of tours containing one of the words `exact`, or beginning with `prefix` (from `tour_terms`).
    func estimatedMatches(exact: [String], prefix: String) async throws -> Int
    /// The rows of one page of `search`, at most `search.limit`, and whether more follow.
    func search(_ search: DiscoverySearch) async throws -> (rows: [DiscoveryRow], hasMore: Bool)
    /// Start points of listed tours inside `box` that match `filter` (its text ignored), by tour id, at most `limit`.
    func markers(in box: BoundingBox, filter: DiscoveryFilter, limit: Int) async throws -> [TourMarker]
}
