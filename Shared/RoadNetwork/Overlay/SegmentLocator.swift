/// Finds the graph's shape segments by their OSM node pair: every shape point sorted by node id (4 bytes a point),
/// searched by bisection. What resolves a ``CostOverlay`` against a graph.
struct SegmentLocator: Sendable {
    let graph: RoadGraph
    /// Shape point indexes ordered by OSM node id, then index.
    private let byNode: [Int32]

    /// Bytes of the index.
    var memoryBytes: Int { byNode.count * 4 }

    init(graph: RoadGraph) {
        self.graph = graph
        let ids = graph.shapeNodeIDs
        byNode = (0..<Int32(ids.count)).sorted { (ids[Int($0)], $0) < (ids[Int($1)], $1) }
    }

    /// The segments riding `pair.from` → `pair.to`: the shape point starting each segment, and whether the pair runs
    /// against the edge's stored direction.
    func segments(_ pair: CostOverlay.NodePair) -> [(point: Int, reversed: Bool)] {
        var found: [(point: Int, reversed: Bool)] = []
        var slot = firstSlot(of: pair.from)
        while slot < byNode.count, graph.shapeNodeIDs[Int(byNode[slot])] == pair.from {
            let point = Int(byNode[slot])
            let edge = graph.edge(ofPoint: point)
            let first = Int(graph.edgeShapeStarts[edge]), last = Int(graph.edgeShapeStarts[edge + 1]) - 1
            if point < last, graph.shapeNodeIDs[point + 1] == pair.to { found.append((point, false)) }
            if point > first, graph.shapeNodeIDs[point - 1] == pair.to { found.append((point - 1, true)) }
            slot += 1
        }
        return found
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
