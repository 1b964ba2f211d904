/// The weights a search uses: the graph's, with a ``CostOverlay`` applied to every edge it touches. Resolved once per
/// overlay (``RoadRouter/weights(for:)``), then shared by every query that uses it; with an empty overlay it shares the
/// graph's own arrays (no copy).
///
/// An edge's weight in a direction is the sum over its consecutive OSM node pairs, in travel order, of
/// `segment length × weight per metre × factor + penalty`. A piece of an edge (a route starting or ending part-way)
/// weighs its share of each segment it covers, penalties included pro rata, so the two pieces of an edge cut at
/// any point weigh the whole edge.
public struct RoadWeights: Sendable {
    /// The overlay these weights apply.
    public let overlay: CostOverlay
    /// Weight source → target of each edge, equivalent metres (`.infinity` where the profile forbids it).
    public let forward: [Double]
    /// Weight target → source of each edge.
    public let backward: [Double]
    /// Pairs of the overlay that are no segment of the graph (outside the extract, or not consecutive on a way).
    public let unmatchedPairs: Int
    /// Tells the graph these weights belong to (``RoadGraph/fingerprint``).
    let graphFingerprint: Int

    /// The graph's own weights.
    init(graph: RoadGraph) {
        overlay = .empty
        forward = graph.edgeForwardWeights
        backward = graph.edgeBackwardWeights
        unmatchedPairs = 0
        graphFingerprint = graph.fingerprint
    }

    /// The graph's weights under `overlay`, its pairs found through `locator`.
    init(graph: RoadGraph, overlay: CostOverlay, locator: SegmentLocator) {
        var forward = graph.edgeForwardWeights, backward = graph.edgeBackwardWeights
        var unmatched = 0
        for (pair, adjustment) in overlay.adjustments.sorted(by: { $0.key < $1.key }) {
            let segments = locator.segments(pair)
            if segments.isEmpty { unmatched += 1 }
            for (point, reversed) in segments {
                let edge = graph.edge(ofPoint: point)
                let length = graph.segmentLength(point)
                let perMetre = graph.ways.use(of: Int(graph.edgeWays[edge])).weightPerMetre
                let extra = length * perMetre * (adjustment.factor - 1) + adjustment.penalty
                if reversed { backward[edge] += extra } else { forward[edge] += extra }  // += on infinity stays infinite
            }
        }
        self.overlay = overlay
        self.forward = forward
        self.backward = backward
        unmatchedPairs = unmatched
        graphFingerprint = graph.fingerprint
    }

    /// The weight of riding `edge` from offset `from` to offset `to` (metres from its source along the shape; `from`
    /// greater than `to` rides it backwards), `.infinity` where that direction is forbidden.
    func pieceWeight(_ graph: RoadGraph, edge: Int, from: Double, to: Double) -> Double {
        if from == to { return 0 }
        let reversed = from > to
        guard (reversed ? backward[edge] : forward[edge]).isFinite else { return .infinity }
        let low = min(from, to), high = max(from, to)
        let perMetre = graph.ways.use(of: Int(graph.edgeWays[edge])).weightPerMetre
        if overlay.isEmpty { return (high - low) * perMetre }
        var weight = 0.0
        var start = 0.0
        let first = Int(graph.edgeShapeStarts[edge]), last = Int(graph.edgeShapeStarts[edge + 1]) - 1
        for point in first..<last {
            let length = graph.segmentLength(point)
            let end = start + length
            defer { start = end }
            let covered = min(high, end) - max(low, start)
            guard covered > 0 || (length == 0 && low <= start && start < high) else { continue }
            let pair = reversed ? CostOverlay.NodePair(from: graph.shapeNodeIDs[point + 1], to: graph.shapeNodeIDs[point])
                                : CostOverlay.NodePair(from: graph.shapeNodeIDs[point], to: graph.shapeNodeIDs[point + 1])
            let adjustment = overlay.adjustments[pair] ?? CostOverlay.Adjustment()
            let share = length > 0 ? covered / length : 1
            weight += max(covered, 0) * perMetre * adjustment.factor + adjustment.penalty * share
        }
        return weight
    }
}

extension RoadGraph {
    /// A cheap identity of the graph's shape: counts and a sample of 64 vertices' node ids and edges' lengths. Tells
    /// weights resolved for one graph from another's in the same process (Swift's hashing is seeded per process).
    var fingerprint: Int {
        var hasher = Hasher()
        hasher.combine(vertexCount)
        hasher.combine(edgeCount)
        for sample in 0..<64 {
            if vertexCount > 0 { hasher.combine(vertexNodeIDs[sample * vertexCount / 64]) }
            if edgeCount > 0 { hasher.combine(edgeLengths[sample * edgeCount / 64]) }
        }
        return hasher.finalize()
    }

    /// Length in metres of the shape segment from shape point `point` to the next.
    func segmentLength(_ point: Int) -> Double {
        RoadGraphBuilder.distance((shapeLatitudes[point], shapeLongitudes[point]), (shapeLatitudes[point + 1], shapeLongitudes[point + 1]))
    }

    /// The edge whose shape holds shape point `point` (a vertex shared by two edges: the later edge's first point
    /// and the earlier edge's last are distinct shape points, so this is unambiguous). A binary search over the
    /// edges' shape starts: no array from shape points to edges is kept (it was 15 MiB on the 1M-node grid).
    public func edge(ofPoint point: Int) -> Int {
        var low = 0, high = edgeCount - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if Int(edgeShapeStarts[middle]) <= point { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Metres along `edge`'s shape from its source to its shape point `point`: the segments' lengths summed in order,
    /// as the snap offsets and the edge's length are (computed when asked, not stored: 29 MiB on the 1M-node grid).
    func shapeOffset(ofPoint point: Int, edge: Int) -> Double {
        var offset = 0.0
        for segment in Int(edgeShapeStarts[edge])..<point { offset += segmentLength(segment) }
        return offset
    }
}
