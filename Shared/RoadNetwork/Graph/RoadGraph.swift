/// The routable bicycle network of one or more extracts: vertices where ways meet or end, and edges between them that
/// keep their whole geometry (chains of degree-2 nodes contracted), all in flat arrays — no object per node or edge.
///
/// Built by ``RoadGraphBuilder``. Edges are stored once with a weight per direction (infinite where the profile forbids
/// that direction); ``outgoing(from:)`` lists the directed arcs leaving a vertex.
public struct RoadGraph: Sendable {
    /// The profile the weights come from.
    public let profile: BikeProfile

    // Vertices.
    /// Coordinates in 10⁻⁷ degree, OSM's precision (``DegreeColumn``).
    public internal(set) var vertexLatitudes = DegreeColumn()
    public internal(set) var vertexLongitudes = DegreeColumn()
    /// The OSM node id of each vertex.
    public internal(set) var vertexNodeIDs: [Int64] = []

    // Edges.
    public internal(set) var edgeSources: [Int32] = []
    public internal(set) var edgeTargets: [Int32] = []
    /// Length in metres along the geometry.
    public internal(set) var edgeLengths: [Double] = []
    /// Weight source → target in equivalent metres (`.infinity` where not allowed).
    public internal(set) var edgeForwardWeights: [Double] = []
    /// Weight target → source.
    public internal(set) var edgeBackwardWeights: [Double] = []
    /// Index of the edge's way in ``ways``.
    public internal(set) var edgeWays: [Int32] = []
    /// Where the edge's shape starts in the shape arrays; it ends where the next edge's starts.
    public internal(set) var edgeShapeStarts: [Int32] = [0]

    // Shapes: every OSM node of every edge, endpoints included — the ends read from the vertex columns
    // (``ShapeColumn``).
    public internal(set) var shapeNodeIDs = ShapeColumn<[Int64]>()
    public internal(set) var shapeLatitudes = ShapeColumn<DegreeColumn>()
    public internal(set) var shapeLongitudes = ShapeColumn<DegreeColumn>()

    /// The ways edges come from.
    public internal(set) var ways = RoadWays()

    // Adjacency (compressed rows): for vertex v, arcs `adjacency[adjacencyStarts[v] ..< adjacencyStarts[v + 1]]`,
    // each `edge << 1 | reversed`.
    var adjacencyStarts: [Int32] = [0]
    var adjacency: [Int32] = []

    /// Bytes the shape columns keep: one reference array (shared by the three) and the interior points' values.
    public var shapeMemoryBytes: Int {
        shapeNodeIDs.references.count * 4 + shapeNodeIDs.interior.count * 8 + shapeLatitudes.interior.memoryBytes
            + shapeLongitudes.interior.memoryBytes
    }

    /// Number of vertices.
    public var vertexCount: Int { vertexNodeIDs.count }
    /// Number of edges.
    public var edgeCount: Int { edgeSources.count }

    /// One directed arc: an edge travelled from ``from`` to ``to``.
    public struct Arc: Sendable, Hashable {
        public var edge: Int
        /// Travelled against the edge's stored direction (target → source).
        public var reversed: Bool
        public var from: Int
        public var to: Int
        public var weight: Double
    }

    /// The arcs leaving `vertex` that the profile allows (finite weight).
    public func outgoing(from vertex: Int) -> [Arc] {
        var arcs: [Arc] = []
        forEachArc(from: vertex) { arcs.append($0) }
        return arcs
    }

    /// Calls `body` with every allowed arc leaving `vertex`, without allocating.
    public func forEachArc(from vertex: Int, _ body: (Arc) -> Void) {
        let start = Int(adjacencyStarts[vertex]), end = Int(adjacencyStarts[vertex + 1])
        for slot in start..<end {
            let encoded = Int(adjacency[slot])
            let edge = encoded >> 1
            let reversed = encoded & 1 == 1
            let weight = reversed ? edgeBackwardWeights[edge] : edgeForwardWeights[edge]
            guard weight.isFinite else { continue }
            let to = Int(reversed ? edgeSources[edge] : edgeTargets[edge])
            body(Arc(edge: edge, reversed: reversed, from: vertex, to: to, weight: weight))
        }
    }

    /// The OSM node ids along `edge` in its stored direction (source first).
    public func shapeNodes(of edge: Int) -> [Int64] {
        Array(shapeNodeIDs[Int(edgeShapeStarts[edge])..<Int(edgeShapeStarts[edge + 1])])
    }

    /// The edge's coordinates (latitude, longitude) in its stored direction.
    public func shape(of edge: Int) -> [(latitude: Double, longitude: Double)] {
        (Int(edgeShapeStarts[edge])..<Int(edgeShapeStarts[edge + 1])).map { (shapeLatitudes[$0], shapeLongitudes[$0]) }
    }
}

/// The OSM way an edge comes from, with what routes, instructions and street search need of it.
public struct RoadWay: Sendable, Hashable {
    /// The way's OSM id.
    public var osmID: Int64
    /// Its `name`, if any.
    public var name: String?
    /// Its `ref` (route number), if any.
    public var ref: String?
    /// How the profile uses it.
    public var use: BikeWayUse
}
