/// One direction of a search: a shortest-path tree grown from weighted seed vertices by Dijkstra's algorithm, or by
/// A* when given a consistent potential (a lower bound on the weight still to go), over ``RoadWeights``.
///
/// Forwards, `distance[v]` is the weight from the seeds to `v` and `parent[v]` the arc the route takes into `v`;
/// backwards (on the reversed graph), `distance[v]` is the weight from `v` to the seeds and `parent[v]` the arc the
/// route takes out of `v`. Arcs are encoded `edge << 1 | reversed` (travelled target → source); -1 at a seed.
/// Settled vertices have exact distances; ties are broken by vertex index, so trees are deterministic.
struct SearchTree {
    var distance: [Double]
    var parent: [Int32]
    var settled: [Bool]
    /// Vertices in the order they were settled.
    var order: [Int32] = []
    private var heap = MinHeap()

    init(vertexCount: Int) {
        distance = [Double](repeating: .infinity, count: vertexCount)
        parent = [Int32](repeating: -1, count: vertexCount)
        settled = [Bool](repeating: false, count: vertexCount)
    }

    /// Grows the tree from `seeds` (vertex, starting weight) until `stop(key, tree)` says so for the next vertex to
    /// settle (its key is distance + potential), or every reachable vertex is settled. A vertex whose potential is
    /// infinite cannot reach the other end and is never entered. `settle` is told of each vertex as it is settled.
    mutating func grow(_ graph: RoadGraph, _ weights: RoadWeights, backwards: Bool, seeds: [(vertex: Int, weight: Double)],
                       potential: (Int) -> Double = { _ in 0 }, stop: (Double) -> Bool = { _ in false },
                       settle: (Int, Double) -> Void = { _, _ in }) {
        for seed in seeds where seed.weight < distance[seed.vertex] {
            let p = potential(seed.vertex)
            guard p.isFinite else { continue }
            distance[seed.vertex] = seed.weight
            parent[seed.vertex] = -1
            heap.push(seed.weight + p, seed.vertex)
        }
        while let (key, vertex) = heap.pop() {
            guard !settled[vertex] else { continue }  // a stale entry
            if stop(key) { heap.push(key, vertex); return }
            settled[vertex] = true
            order.append(Int32(vertex))
            let weight = distance[vertex]
            settle(vertex, weight)
            let start = Int(graph.adjacencyStarts[vertex]), end = Int(graph.adjacencyStarts[vertex + 1])
            for slot in start..<end {
                let encoded = Int(graph.adjacency[slot])
                let edge = encoded >> 1
                // Adjacency slot `reversed` means: leaving `vertex` runs target → source. Backwards we need the arc
                // arriving at `vertex` from the same neighbour, which runs the other way.
                let travelReversed = (encoded & 1 == 1) != backwards
                let arcWeight = travelReversed ? weights.backward[edge] : weights.forward[edge]
                guard arcWeight.isFinite else { continue }
                let neighbour = Int(encoded & 1 == 1 ? graph.edgeSources[edge] : graph.edgeTargets[edge])
                let candidate = weight + arcWeight
                guard candidate < distance[neighbour], !settled[neighbour] else { continue }
                let p = potential(neighbour)
                guard p.isFinite else { continue }
                distance[neighbour] = candidate
                parent[neighbour] = Int32(edge << 1 | (travelReversed ? 1 : 0))
                heap.push(candidate + p, neighbour)
            }
        }
    }

    /// The vertex at the other end of `arc` from `vertex`.
    static func otherEnd(_ graph: RoadGraph, arc: Int32, from vertex: Int) -> Int {
        let edge = Int(arc >> 1)
        let source = Int(graph.edgeSources[edge])
        return source == vertex ? Int(graph.edgeTargets[edge]) : source
    }

    /// The tree's arcs from a seed to `vertex` (forwards) or from `vertex` to a seed (backwards), in travel order,
    /// and the seed reached.
    func arcs(_ graph: RoadGraph, to vertex: Int, backwards: Bool) -> (arcs: [Int32], seed: Int) {
        var arcs: [Int32] = []
        var v = vertex
        while parent[v] >= 0 {
            arcs.append(parent[v])
            v = Self.otherEnd(graph, arc: parent[v], from: v)
        }
        return (backwards ? arcs : arcs.reversed(), v)
    }
}
