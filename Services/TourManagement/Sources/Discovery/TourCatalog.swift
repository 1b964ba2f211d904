import Contracts
import EventSourcing
import Foundation
import Geo

/// One search hit: the tour, and its distance from `near` when the search had one.
public struct DiscoveryHit: Sendable, Hashable {
    public var tour: PublishedTour
    public var distanceMetres: Double?
}

/// One page of search hits; `nextCursor` is `nil` on the last page.
public struct DiscoveryPage: Sendable, Hashable {
    public var hits: [DiscoveryHit]
    public var nextCursor: DiscoveryCursor?
}

/// A tour's marker on the map: where it starts.
public struct TourMarker: Sendable, Hashable {
    public var tourId: UUID
    public var title: String
    public var start: LatLng

    public init(tourId: UUID, title: String, start: LatLng) {
        self.tourId = tourId
        self.title = title
        self.start = start
    }
}

/// Reads of the discovery read model: the domain of a search (text matching by selectivity, order, keyset and offset
/// pages) over a ``TourCatalogStore``, which writes its backend's SQL (the conformance suite runs the same searches
/// against both).
public struct TourCatalog: Sendable {
    let store: any TourCatalogStore
    /// See ``broadQueryMatches``.
    let broadThreshold: Int

    /// The catalog over `store` (the composition root picks its backend: ``TourManagementStores/catalog``).
    public init(store: any TourCatalogStore, broadQueryMatches: Int = TourCatalog.broadQueryMatches) {
        self.store = store
        broadThreshold = broadQueryMatches
    }

    /// The same catalog with another broad-query threshold (tests).
    public func withBroadQueryMatches(_ matches: Int) -> TourCatalog {
        TourCatalog(store: store, broadQueryMatches: matches)
    }

    /// The last published revision of a tour: only while listed, unless `includeUnlisted` (travellers who bought a tour
    /// keep using it after its guide unpublished it).
    public func tour(_ id: UUID, includeUnlisted: Bool = false) async throws -> PublishedTour? {
        try await store.tour(id, includeUnlisted: includeUnlisted)
    }

    /// Completed purchases and acquisitions of listed tours, per destination.
    public func popularityByDestination() async throws -> [Int64: Int] {
        try await store.popularityByDestination()
    }

    /// Above this many (estimated) matches a relevance search orders its matches by popularity instead of by text rank:
    /// words that many tours contain say little about which tour is meant, and ranking every match is what makes a
    /// search slow (~0.6 µs per match for FTS5's bm25, ~2 µs for PostgreSQL's heap fetch + `ts_rank`: 500 matches stay
    /// near 1 ms). Selective queries (a name, a rare word, several words together) are ranked by text.
    public static let broadQueryMatches = 500

    /// An upper bound of the tours matching `text`: the smallest count of tours containing one of its words (for the
    /// last word, a prefix, the sum over the words it begins), from `tour_terms`.
    public func estimatedMatches(_ text: String) async throws -> Int {
        let terms = DiscoveryText.terms(text)
        guard let last = terms.last else { return 0 }
        return try await store.estimatedMatches(exact: Array(terms.dropLast()), prefix: last)
    }

    /// One page of a search.
    public func search(_ query: DiscoveryQuery) async throws -> DiscoveryPage {
        var search = DiscoverySearch(filter: query.filter, text: nil, order: .popularity, after: nil, offset: 0, limit: query.limit)
        search.filter.text = nil
        if let text = query.filter.text {
            let ranked = query.sort == .relevance ? try await estimatedMatches(text) <= broadThreshold : false
            search.text = ranked ? .ranked(text) : .probed(text)
        }
        search.order = switch query.sort {
        case .relevance: if case .ranked = search.text { .textRank } else { .popularity }
        case .rating: .rating
        case .popularity: .popularity
        case .distance: .distance
        case .price: .price
        case .newest: .newest
        }
        if let cursor = query.cursor {
            if let start = cursor.offset {
                search.offset = start
            } else if let value = cursor.key, let after = cursor.tourId {
                search.after = (value, after)
            }
        }
        let (rows, hasMore) = try await store.search(search)
        let hits = rows.map { DiscoveryHit(tour: $0.tour, distanceMetres: $0.distance) }
        var next: DiscoveryCursor?
        if hasMore, let last = rows.last {
            next = query.sort == .relevance
                ? DiscoveryCursor(sort: .relevance, offset: search.offset + query.limit)
                : DiscoveryCursor(sort: query.sort, key: last.sortKey, tourId: last.tour.tourId)
        }
        return DiscoveryPage(hits: hits, nextCursor: next)
    }

    /// Start points of listed tours inside `box` that match `filter` (no text search), at most `limit`.
    public func markers(in box: BoundingBox, filter: DiscoveryFilter, limit: Int = 20_000) async throws -> [TourMarker] {
        var plain = filter
        plain.text = nil
        return try await store.markers(in: box, filter: plain, limit: limit)
    }

    /// The listed tours among `ids` (summaries, `stops` empty), in one query.
    func listedTours(_ ids: [UUID]) async throws -> [UUID: PublishedTour] {
        guard !ids.isEmpty else { return [:] }
        var result: [UUID: PublishedTour] = [:]
        for tour in try await store.listedTours(ids) { result[tour.tourId] = tour }
        return result
    }
}
