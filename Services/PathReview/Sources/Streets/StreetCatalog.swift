import RoadNetwork

/// The streets the service serves: RoadNetwork's ``StreetIndex`` (named chains of bike-usable ways, id = smallest OSM
/// way id) with each street's compatibility and length, searched by name or around a point, a page at a time.
///
/// Pages are offsets into the ranked list: the catalogue is built once from the extracts and never changes while the
/// process runs, so an offset names the same street on every request of that process.
public struct StreetCatalog: Sendable {
    /// The index it serves.
    public let index: StreetIndex
    let snaps: SnapIndex
    private let compatibilities: [Int64: StreetCompatibility]
    private let lengths: [Int64: Double]

    /// The most streets one request may skip and read (offset + limit): a page beyond it is empty.
    public static let maximumRank = 1_000

    /// One street with what the service says of it.
    public struct Entry: Sendable, Hashable {
        public var street: StreetIndex.Street
        public var compatibility: StreetCompatibility
        /// Length of its edges in metres.
        public var length: Double
        /// Metres from the asked point (searches around a point only).
        public var distance: Double?
    }

    /// A page of entries and the offset of the next page, if there is one.
    public struct Page: Sendable {
        public var entries: [Entry]
        public var nextOffset: Int?
    }

    /// The catalogue of `index`, searched around points with `snaps`.
    public init(index: StreetIndex, snaps: SnapIndex) {
        self.index = index
        self.snaps = snaps
        var compatibilities: [Int64: StreetCompatibility] = [:]
        var lengths: [Int64: Double] = [:]
        let graph = index.graph
        for street in index.streets {
            let ridden = street.edges.contains { graph.ways.use(of: Int(graph.edgeWays[$0])).mode == .ride }
            compatibilities[street.id] = StreetCompatibility(reasons: ridden ? [] : [.pushOnly])
            lengths[street.id] = street.edges.reduce(0) { $0 + graph.edgeLengths[$1] }
        }
        self.compatibilities = compatibilities
        self.lengths = lengths
    }

    /// The street `id`, `nil` when there is none.
    public func street(id: Int64) -> Entry? {
        index.street(id: id).map { entry($0, distance: nil) }
    }

    /// Streets whose name matches `query` (``StreetIndex/search(_:limit:)``'s rule and rank), from `offset`.
    public func search(_ query: String, offset: Int, limit: Int) -> Page {
        page(offset: offset, limit: limit) { index.search(query, limit: $0).map { entry($0, distance: nil) } }
    }

    /// Streets with an edge within `radius` metres of the point, nearest first (ties by id), from `offset`.
    public func near(latitude: Double, longitude: Double, radius: Double, offset: Int, limit: Int) -> Page {
        page(offset: offset, limit: limit) { wanted in
            index.near(latitude: latitude, longitude: longitude, radius: radius, limit: wanted, snaps: snaps).map { entry($0.street, distance: $0.distance) }
        }
    }

    /// The GeoJSON MultiLineString coordinates of a street: one line per edge, `(latitude, longitude)` pairs.
    public func lines(of street: StreetIndex.Street) -> [[(latitude: Double, longitude: Double)]] {
        index.lines(of: street)
    }

    /// One node pair per edge of `street` (`[min, max]` OSM node ids of the edge's middle shape segment): what decides
    /// whether approved paths cover it.
    public func representativeSegments(of street: StreetIndex.Street) -> [[Int64]] {
        let graph = index.graph
        return street.edges.map { edge in
            let first = Int(graph.edgeShapeStarts[edge]), last = Int(graph.edgeShapeStarts[edge + 1]) - 1
            let middle = first + max(0, last - first - 1) / 2
            let a = graph.shapeNodeIDs[middle], b = graph.shapeNodeIDs[min(middle + 1, last)]
            return [min(a, b), max(a, b)]
        }
    }

    /// The OSM node sequence of each edge of `street` (what `StreetCompatibilityChanged` carries).
    public func osmNodes(of street: StreetIndex.Street) -> [[Int64]] {
        let graph = index.graph
        return street.edges.map { edge in Array(graph.shapeNodeIDs[Int(graph.edgeShapeStarts[edge])..<Int(graph.edgeShapeStarts[edge + 1])]) }
    }

    private func entry(_ street: StreetIndex.Street, distance: Double?) -> Entry {
        Entry(street: street, compatibility: compatibilities[street.id] ?? StreetCompatibility(reasons: []),
              length: lengths[street.id] ?? 0, distance: distance)
    }

    /// Ranks one more than the page needs (to know whether a next page exists), never past ``maximumRank``.
    private func page(offset: Int, limit: Int, ranked: (Int) -> [Entry]) -> Page {
        guard offset >= 0, limit > 0, offset < Self.maximumRank else { return Page(entries: [], nextOffset: nil) }
        let end = min(offset + limit, Self.maximumRank)
        let all = ranked(min(end + 1, Self.maximumRank))
        let entries = offset < all.count ? Array(all[offset..<min(end, all.count)]) : []
        let next = all.count > end && end < Self.maximumRank ? end : nil
        return Page(entries: entries, nextOffset: next)
    }
}
