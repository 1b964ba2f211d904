/// Finds the graph's shape segments by their OSM node pair: the shape points that start a segment (every point but
/// each edge's last) sorted by node id (4 bytes a segment), searched by bisection — a pair ridden along an edge starts
/// at `from`, ridden against it at `to`. What resolves a ``CostOverlay`` against a graph.
struct SegmentLocator: Sendable {
    let graph: RoadGraph
    /// Segment-starting shape point indexes ordered by OSM node id, then index.
    private let byNode: [Int32]

    /// Bytes of the index.
    var memoryBytes: Int { byNode.count * 4 }

    init(graph: RoadGraph) {
        self.graph = graph
        let ids = graph.shapeNodeIDs
        var starts: [Int32] = []
        starts.reserveCapacity(ids.count - graph.edgeCount)
        for edge in 0..<graph.edgeCount {
            for point in graph.edgeShapeStarts[edge]..<(graph.edgeShapeStarts[edge + 1] - 1) { starts.append(point) }
        }
        starts.sort { (ids[Int($0)], $0) < (ids[Int($1)], $1) }
        byNode = starts
    }

    /// The segments riding `pair.from` → `pair.to`: the shape point starting each segment, and whether the pair runs
    /// against the edge's stored direction; in the order of the point at `pair.from`, along before against.
    func segments(_ pair: CostOverlay.NodePair) -> [(point: Int, reversed: Bool)] {
        var found: [(key: Int, point: Int, reversed: Bool)] = []
        var slot = firstSlot(of: pair.from)
        while slot < byNode.count, graph.shapeNodeIDs[Int(byNode[slot])] == pair.from {
            let point = Int(byNode[slot])
            if graph.shapeNodeIDs[point + 1] == pair.to { found.append((2 * point, point, false)) }
            slot += 1
        }
        slot = firstSlot(of: pair.to)
        while slot < byNode.count, graph.shapeNodeIDs[Int(byNode[slot])] == pair.to {
            let point = Int(byNode[slot])
            if graph.shapeNodeIDs[point + 1] == pair.from { found.append((2 * (point + 1) + 1, point, true)) }
            slot += 1
        }
        if found.count > 1 { found.sort { $0.key < $1.key } }
        return found.map { ($0.point, $0.reversed) }
    }
    private func firstSlot(of node: Int64) -> Int {
        var low = 0, high = byNode.count
        while low < high {
            let middle = (low + high) / 2
            if graph.shapeNodeIDs[Int(byNode[middle])] < node { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
