import Geo

/// Routes between coordinates on a ``RoadGraph``: snapping, part-way starts and ends, via points, alternatives, and
/// the exact minimum-weight route under the profile plus a ``CostOverlay``, found by A* with landmark lower bounds
/// (ALT), which stays exact under every overlay (`docs/road-network.md`, "Routes").
///
/// Build one per graph and share it: from a ``LoadedRoadNetwork`` (``init(network:alternativeRules:)``, landmarks read
/// from the compiled cache) or from a bare graph (``init(graph:landmarkCount:alternativeRules:)``, which computes them:
/// 2 Dijkstra searches per landmark). It is safe from any task: its state is immutable but for a pool of reusable
/// search workspaces (`SearchTreePool`). Overlays are resolved once into ``RoadWeights`` (``weights(for:)``) and passed
/// per query, so a service swaps conditions by replacing one value.
public struct RoadRouter: Sendable {
    /// The graph routed on.
    public let graph: RoadGraph
    /// The snapping index points are snapped with.
    public let snapIndex: SnapIndex
    /// The profile's own weights (the empty overlay).
    public let baseWeights: RoadWeights
    /// The landmarks of the A* lower bounds.
    public let landmarks: RoadLandmarks
    /// On big graphs (``RoadHierarchy/minimumVertexCount`` vertices or more): the contraction hierarchy whose exact
    /// base-weight distances replace the landmark bounds as every search's potential.
    public let hierarchy: RoadHierarchy?
    let locator: SegmentLocator
    /// Search workspaces, reused by query after query.
    let trees: SearchTreePool
    /// The graph's ``RoadGraph/fingerprint``, computed once.
    let fingerprint: Int
    /// The rules alternatives must pass.
    public let alternativeRules: AlternativeRules
    /// The graph's strongly connected pieces and which of them reach or are reached from the main network, so a route's
    /// points snap where a route can start and end (``snap(_:as:radius:)``).
    public let components: RoadComponents

    /// The most via points a request may have. Each leg is a search of its own; 25 covers any ride a person plans by
    /// hand (Google Maps allows 9 stops on the web, 25 through its API) and bounds a request's work.
    public static let maximumViaPoints = 25
    /// Landmarks on networks that route without a hierarchy (``RoadLandmarks/defaultCount(vertexCount:)``: none on those
    /// with one): 16 is the usual ALT choice for city networks (Goldberg & Harrelson found returns to diminish past 16).
    public static let defaultLandmarkCount = 16

    /// A router over `graph` with `landmarkCount` landmarks (by default as many as
    /// ``RoadLandmarks/defaultCount(vertexCount:)`` gives; 0: plain Dijkstra, for comparison) and, on graphs of
    /// ``RoadHierarchy/minimumVertexCount`` vertices or more (or when `hierarchy` says so), a contraction hierarchy —
    /// all computed here.
    public init(graph: RoadGraph, landmarkCount: Int? = nil, hierarchy: Bool? = nil, alternativeRules: AlternativeRules = AlternativeRules()) {
        let wanted = hierarchy ?? RoadHierarchy.wanted(vertexCount: graph.vertexCount)
        self.init(graph: graph, landmarks: RoadLandmarks(graph: graph, count: landmarkCount), hierarchy: wanted ? RoadHierarchy(graph: graph) : nil,
                  alternativeRules: alternativeRules)
    }

    /// A router over a loaded network, with the landmarks and hierarchy it was loaded with (from the compiled cache:
    /// no search runs).
    public init(network: LoadedRoadNetwork, alternativeRules: AlternativeRules = AlternativeRules()) {
        self.init(graph: network.graph, landmarks: network.landmarks, hierarchy: network.hierarchy, alternativeRules: alternativeRules)
    }

    /// A router over `graph` with landmarks and a hierarchy computed for it (``RoadLandmarks/init(graph:count:)``,
    /// ``RoadHierarchy/init(graph:)``); those of another graph would give wrong bounds, so they are computed anew
    /// instead. With a hierarchy, every search's potential is the hierarchy's exact base distance and the landmarks
    /// are not read.
    public init(graph: RoadGraph, landmarks: RoadLandmarks, hierarchy: RoadHierarchy? = nil, alternativeRules: AlternativeRules = AlternativeRules()) {
        self.graph = graph
        fingerprint = graph.fingerprint
        snapIndex = SnapIndex(graph: graph)
        baseWeights = RoadWeights(graph: graph)
        self.landmarks = landmarks.graphFingerprint == fingerprint ? landmarks : RoadLandmarks(graph: graph, count: landmarks.count)
        if let hierarchy, hierarchy.graphFingerprint != fingerprint {
            self.hierarchy = RoadHierarchy(graph: graph)
        } else {
            self.hierarchy = hierarchy
        }
        locator = SegmentLocator(graph: graph)
        trees = SearchTreePool(vertexCount: graph.vertexCount)
        self.alternativeRules = alternativeRules
        components = RoadComponents(graph: graph)
    }

    /// What the router keeps beside the graph's arrays, in bytes, by part (the benchmark's breakdown): the graph's
    /// adjacency rows, the snap index, the segment locator, the components and the hierarchy or the landmarks.
    public var memoryBreakdown: KeyValuePairs<String, Int> {
        [
            "adjacency": (graph.adjacencyStarts.count + graph.adjacency.count) * 4,
            "snap index": snapIndex.memoryBytes,
            "segment locator": locator.memoryBytes,
            "components": components.memoryBytes,
            "hierarchy": hierarchy?.memoryBytes ?? 0,
            "landmarks": landmarks.memoryBytes,
        ]
    }

    /// The graph's weights under `overlay`: a copy of the weight arrays with the overlay's segments adjusted (the
    /// base weights themselves, no copy, for an empty overlay). Resolve once per overlay, reuse for every query.
    public func weights(for overlay: CostOverlay) -> RoadWeights {
        overlay.isEmpty ? baseWeights : RoadWeights(graph: graph, overlay: overlay, locator: locator)
    }

    /// The best route for `request` under `weights` (the base weights when `nil`), then up to `request.alternatives`
    /// alternatives; ``RouteResult/noRoute(leg:)`` when a leg joins parts that do not connect.
    public func route(_ request: RouteRequest, weights: RoadWeights? = nil) throws(RouteError) -> RouteResult {
        let weights = weights ?? baseWeights
        let snaps = try validate(request, weights: weights)
        if request.via.isEmpty, request.alternatives > 0 {
            let ends = legEnds(from: snaps[0], to: snaps[1], weights: weights)
            let routes = alternativeLegs(ends, weights: weights, count: request.alternatives)
            return routes.isEmpty ? .noRoute(leg: 0) : .routes(routes.map(graph.route(of:)))
        }
        var pieces: [RoutePiece] = []
        for leg in 0..<(snaps.count - 1) {
            guard let legPieces = bestLeg(legEnds(from: snaps[leg], to: snaps[leg + 1], weights: weights), weights: weights).pieces else {
                return .noRoute(leg: leg)
            }
            pieces += legPieces
        }
        return .routes([graph.route(of: pieces)])
    }

    /// The minimum-weight route between two vertices under `weights`; `nil` when there is none or a vertex is out of
    /// range. The same search as ``route(_:weights:)``, for callers (and oracles) that work on vertices.
    public func route(fromVertex source: Int, toVertex target: Int, weights: RoadWeights? = nil) -> RoadRoute? {
        let weights = weights ?? baseWeights
        guard (0..<graph.vertexCount).contains(source), (0..<graph.vertexCount).contains(target),
              weights.graphFingerprint == fingerprint else { return nil }
        return bestLeg(vertexEnds(source, target), weights: weights).pieces.map(graph.route(of:))
    }

    /// Vertices settled (a reopened vertex counts again) by the search between two vertices under the base weights:
    /// the work the landmarks save (tests, benchmarks); 0 when a vertex is out of range.
    public func searchEffort(fromVertex source: Int, toVertex target: Int) -> Int {
        guard (0..<graph.vertexCount).contains(source), (0..<graph.vertexCount).contains(target) else { return 0 }
        return bestLeg(vertexEnds(source, target), weights: baseWeights).settled
    }

    private func vertexEnds(_ source: Int, _ target: Int) -> LegEnds {
        LegEnds(origins: [Seed(vertex: source, weight: 0, piece: nil)], targets: [Seed(vertex: target, weight: 0, piece: nil)], direct: nil)
    }

    /// The snaps of the request's points (``snap(_:radius:)``: onto the main network where a leg would not connect
    /// otherwise), or the first problem with it.
    private func validate(_ request: RouteRequest, weights: RoadWeights) throws(RouteError) -> [SnapIndex.Snap] {
        guard weights.graphFingerprint == fingerprint else { throw .weightsForAnotherGraph }
        guard request.via.count <= Self.maximumViaPoints else { throw .tooManyViaPoints(count: request.via.count, limit: Self.maximumViaPoints) }
        guard (0...2).contains(request.alternatives) else { throw .invalidAlternativeCount(request.alternatives) }
        guard request.snapRadius.isFinite, request.snapRadius > 0 else { throw .invalidSnapRadius(request.snapRadius) }
        let points = request.points
        for (index, point) in points.enumerated() {
            do { _ = try Coordinate(latitude: point.latitude, longitude: point.longitude) } catch { throw .invalidCoordinate(index: index, reason: error) }
        }
        let snaps = try snap(points, radius: request.snapRadius)
        for leg in 0..<(points.count - 1) {
            let a = snaps[leg], b = snaps[leg + 1]
            if points[leg] == points[leg + 1] || (a.edge == b.edge && abs(a.offset - b.offset) < Self.coincidenceMetres) {
                throw .coincidentPoints(leg: leg)
            }
        }
        return snaps
    }

    /// Snapped points closer than this along one edge are one point (a centimetre: below any GPS's precision).
    static let coincidenceMetres = 0.01
}
