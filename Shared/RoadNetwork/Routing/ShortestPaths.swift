/// Exact minimum-weight paths on a ``RoadGraph`` by Dijkstra's algorithm with a binary heap (lazy deletion): the
/// reference search, and the one the pgRouting oracle checks (`pgr_dijkstra` on the exported edge table).
public struct ShortestPaths: Sendable {
    public let graph: RoadGraph

    public init(graph: RoadGraph) {
        self.graph = graph
    }

    /// A path between two vertices: its weight and the arcs in travel order.
    public struct Path: Sendable, Hashable {
        public var weight: Double
        public var arcs: [RoadGraph.Arc]
        /// Length in metres.
        public var length: Double
    }

    /// The minimum-weight path from `source` to `target`, or `nil` when none exists (disconnected parts, one-way traps).
    /// Ties are broken by vertex index, so the result is deterministic.
    public func path(from source: Int, to target: Int) -> Path? {
        precondition((0..<graph.vertexCount).contains(source) && (0..<graph.vertexCount).contains(target), "vertex out of range")
        if source == target { return Path(weight: 0, arcs: [], length: 0) }
        var distance = [Double](repeating: .infinity, count: graph.vertexCount)
        var parent = [RoadGraph.Arc?](repeating: nil, count: graph.vertexCount)
        var heap = MinHeap()
        distance[source] = 0
        heap.push(0, source)
        while let (weight, vertex) = heap.pop() {
            guard weight == distance[vertex] else { continue }  // a stale entry
            if vertex == target { break }
            graph.forEachArc(from: vertex) { arc in
                let candidate = weight + arc.weight
                if candidate < distance[arc.to] {
                    distance[arc.to] = candidate
                    parent[arc.to] = arc
                    heap.push(candidate, arc.to)
                }
            }
        }
        guard distance[target].isFinite else { return nil }
        var arcs: [RoadGraph.Arc] = []
        var vertex = target
        while vertex != source, let arc = parent[vertex] {
            arcs.append(arc)
            vertex = arc.from
        }
        arcs.reverse()
        return Path(weight: distance[target], arcs: arcs, length: arcs.reduce(0) { $0 + graph.edgeLengths[$1.edge] })
    }

    /// Weights of the minimum-weight paths from `source` to every vertex (`.infinity` where unreachable).
    public func weights(from source: Int) -> [Double] {
        var distance = [Double](repeating: .infinity, count: graph.vertexCount)
        var heap = MinHeap()
        distance[source] = 0
        heap.push(0, source)
        while let (weight, vertex) = heap.pop() {
            guard weight == distance[vertex] else { continue }
            graph.forEachArc(from: vertex) { arc in
                let candidate = weight + arc.weight
                if candidate < distance[arc.to] {
                    distance[arc.to] = candidate
                    heap.push(candidate, arc.to)
                }
            }
        }
        return distance
    }
}

/// A binary min-heap of (key, vertex), ordered by key then vertex (deterministic ties).
struct MinHeap {
    private var keys: [Double] = []
    private var values: [Int] = []

    var isEmpty: Bool { keys.isEmpty }

    /// Empties the heap, keeping its storage for the next search.
    mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        keys[a] < keys[b] || (keys[a] == keys[b] && values[a] < values[b])
    }

    mutating func push(_ key: Double, _ value: Int) {
        keys.append(key)
        values.append(value)
        var child = keys.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { break }
            keys.swapAt(child, parent)
            values.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (Double, Int)? {
        guard let topKey = keys.first, let topValue = values.first else { return nil }
        let lastKey = keys.removeLast(), lastValue = values.removeLast()
        if !keys.isEmpty {
            keys[0] = lastKey
            values[0] = lastValue
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < keys.count, less(left, smallest) { smallest = left }
                if right < keys.count, less(right, smallest) { smallest = right }
                guard smallest != parent else { break }
                keys.swapAt(parent, smallest)
                values.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return (topKey, topValue)
    }
}
