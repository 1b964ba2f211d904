import ReferenceData

/// Streets of a ``RoadGraph``: a *street* is a named chain of bike-usable ways — ways with the same name (compared by
/// ReferenceData's ``NameKey``) that meet at a vertex, so the two "Hauptstraße" of two villages are two streets. Its id
/// is the smallest OSM way id among its ways: stable while the extract is.
///
/// Search by name is the destinations' rule: every word of the query must be a word of the name, the last one as a
/// prefix; exact names first, then shorter names, then by name and id. Search around a point uses a ``SnapIndex``.
public struct StreetIndex: Sendable {
    public let graph: RoadGraph

    /// One street.
    public struct Street: Sendable, Hashable, Identifiable {
        /// The smallest OSM way id of its ways.
        public var id: Int64
        /// The name as tagged (of its first way).
        public var name: String
        /// Its OSM way ids, ascending.
        public var wayIDs: [Int64]
        /// The graph edges it is made of, ascending.
        public var edges: [Int]
        /// South, west, north, east in degrees.
        public var south: Double, west: Double, north: Double, east: Double
    }

    /// Every street, by id.
    public private(set) var streets: [Street] = []
    private var indexOfID: [Int64: Int] = [:]
    private var streetOfEdge: [Int32] = []
    private var nameKeys: [String] = []
    private var nameWords: [[String]] = []

    /// Groups the named ways of `graph` into streets.
    public init(graph: RoadGraph) {
        self.graph = graph
        // Union-find over ways: same name key and a shared vertex.
        var parent = Array(0..<graph.ways.count)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        let keys = graph.ways.map { $0.name.map(NameKey.key) }
        var firstWayAt: [String: [Int32: Int]] = [:]  // name key → vertex → a way of that name touching it
        for edge in 0..<graph.edgeCount {
            let way = Int(graph.edgeWays[edge])
            guard let key = keys[way], !key.isEmpty else { continue }
            for vertex in [graph.edgeSources[edge], graph.edgeTargets[edge]] {
                if let other = firstWayAt[key]?[vertex] {
                    let (a, b) = (find(way), find(other))
                    if a != b { parent[max(a, b)] = min(a, b) }
                } else {
                    firstWayAt[key, default: [:]][vertex] = way
                }
            }
        }
        var streetOfRoot: [Int: Int] = [:]
        streetOfEdge = [Int32](repeating: -1, count: graph.edgeCount)
        for edge in 0..<graph.edgeCount {
            let way = Int(graph.edgeWays[edge])
            guard let key = keys[way], !key.isEmpty, let name = graph.ways[way].name else { continue }
            let root = find(way)
            let index: Int
            if let existing = streetOfRoot[root] {
                index = existing
            } else {
                index = streets.count
                streetOfRoot[root] = index
                streets.append(Street(id: .max, name: name, wayIDs: [], edges: [], south: 90, west: 180, north: -90, east: -180))
                nameKeys.append(key)
                nameWords.append(NameKey.words(name))
            }
            streetOfEdge[edge] = Int32(index)
            streets[index].edges.append(edge)
            streets[index].wayIDs.append(graph.ways[way].osmID)
            streets[index].id = min(streets[index].id, graph.ways[way].osmID)
            for (latitude, longitude) in graph.shape(of: edge) {
                streets[index].south = min(streets[index].south, latitude)
                streets[index].north = max(streets[index].north, latitude)
                streets[index].west = min(streets[index].west, longitude)
                streets[index].east = max(streets[index].east, longitude)
            }
        }
        for index in streets.indices {
            streets[index].wayIDs = Array(Set(streets[index].wayIDs)).sorted()
            indexOfID[streets[index].id] = index
        }
    }

    /// The street with `id`.
    public func street(id: Int64) -> Street? {
        indexOfID[id].map { streets[$0] }
    }

    /// The street an edge belongs to (`nil` for an unnamed way).
    public func street(ofEdge edge: Int) -> Street? {
        let index = streetOfEdge[edge]
        return index >= 0 ? streets[Int(index)] : nil
    }

    /// Streets whose name has every word of `query` (the last as a prefix), best first; at most `limit`.
    public func search(_ query: String, limit: Int) -> [Street] {
        let words = NameKey.words(query)
        guard let last = words.last, limit > 0 else { return [] }
        let whole = words.dropLast()
        let queryKey = words.joined(separator: " ")
        var matches: [Int] = []
        for index in streets.indices {
            let name = nameWords[index]
            guard whole.allSatisfy(name.contains), name.contains(where: { $0.hasPrefix(last) }) else { continue }
            matches.append(index)
        }
        func rank(_ index: Int) -> (Int, Int, String, Int64) {
            let exact = nameWords[index].joined(separator: " ") == queryKey ? 0 : 1
            return (exact, nameKeys[index].count, nameKeys[index], streets[index].id)
        }
        return matches.sorted { rank($0) < rank($1) }.prefix(limit).map { streets[$0] }
    }

    /// Streets with a usable edge within `radius` metres of the point, nearest first (ties by id), with their distance.
    public func near(latitude: Double, longitude: Double, radius: Double, limit: Int, snaps: SnapIndex) -> [(street: Street, distance: Double)] {
        guard limit > 0 else { return [] }
        var best: [Int: Double] = [:]
        for snap in snaps.candidates(latitude: latitude, longitude: longitude, radius: radius, limit: max(limit * 8, 64)) {
            let index = Int(streetOfEdge[snap.edge])
            guard index >= 0 else { continue }
            best[index] = min(best[index] ?? .infinity, snap.distance)
        }
        return best.sorted { ($0.value, streets[$0.key].id) < ($1.value, streets[$1.key].id) }
            .prefix(limit).map { (streets[$0.key], $0.value) }
    }

    /// The street's geometry as lines (one per edge, in edge order): a GeoJSON MultiLineString's coordinates.
    public func lines(of street: Street) -> [[(latitude: Double, longitude: Double)]] {
        street.edges.map { graph.shape(of: $0) }
    }
}
