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

/// A binary min-heap of (key, vertex), ordered by key then vertex (deterministic ties: a strict total order, so the
/// pops come in one order whatever the heap's layout). Entries sit in one array, and sifting moves a hole instead of
/// swapping (half the writes).
struct MinHeap {
    private struct Entry {
        var key: Double
        var value: Int
        func precedes(_ other: Entry) -> Bool { key < other.key || (key == other.key && value < other.value) }
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    /// The smallest key, without taking it.
    var smallestKey: Double? { entries.first?.key }

    /// Empties the heap, keeping its storage for the next search.
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }

    mutating func push(_ key: Double, _ value: Int) {
        let entry = Entry(key: key, value: value)
        entries.append(entry)
        entries.withUnsafeMutableBufferPointer { heap in
            var hole = heap.count - 1
            while hole > 0 {
                let parent = (hole - 1) / 2
                guard entry.precedes(heap[parent]) else { break }
                heap[hole] = heap[parent]
                hole = parent
            }
            heap[hole] = entry
        }
    }

    mutating func pop() -> (Double, Int)? {
        guard let top = entries.first else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries.withUnsafeMutableBufferPointer { heap in
                let count = heap.count
                var hole = 0
                while true {
                    let left = 2 * hole + 1
                    guard left < count else { break }
                    let right = left + 1
                    let child = right < count && heap[right].precedes(heap[left]) ? right : left
                    guard heap[child].precedes(last) else { break }
                    heap[hole] = heap[child]
                    hole = child
                }
                heap[hole] = last
            }
        }
        return (top.key, top.value)
    }
}
