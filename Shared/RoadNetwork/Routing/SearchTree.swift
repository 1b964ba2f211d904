/// One direction of a search: a shortest-path tree grown from weighted seed vertices by Dijkstra's algorithm, or by
/// A* when given a potential (a lower bound on the weight still to go), over ``RoadWeights``.
///
/// Forwards, ``distance(_:)`` is the weight from the seeds to a vertex and ``parent(_:)`` the arc the route takes into
/// it; backwards (on the reversed graph), the weight from the vertex to the seeds and the arc the route takes out of
/// it. Arcs are encoded `edge << 1 | reversed` (travelled target → source); -1 at a seed. Ties are broken by vertex
/// index, so trees are deterministic.
///
/// A tree is a workspace: its arrays are allocated once for the graph's vertex count and reused by search after
/// search (``SearchTreePool``). ``reset()`` starts a new search in O(1) by moving a generation stamp; a vertex whose
/// stamp is older than the current search counts as untouched. Landmark potentials are admissible but consistent
/// only up to a rounding unit, so a settled vertex reached again more cheaply is reopened: a vertex settled with a
/// key below the stop key minus that unit has its exact distance (`docs/road-network.md`, "Speed").
final class SearchTree: @unchecked Sendable {  // used by one search at a time: a pool hands it out under its lock
    /// The vertex count the arrays are sized for.
    let vertexCount: Int
    // `@exclusivity(unchecked)`: a tree serves one search at a time (the pool's lock hands it out), and the runtime's
    // access checks on these arrays cost a fifth of a search's time.
    @exclusivity(unchecked) private var distances: [Double]
    @exclusivity(unchecked) private var parents: [Int32]
    /// Memoised potentials: the landmark bound is computed once per vertex and search.
    @exclusivity(unchecked) private var potentials: [Double]
    /// Per vertex, against `base` (3 × the search's generation): below it untouched by this search; `base` potential
    /// known; `base + 1` reached (in the heap); `base + 2` settled.
    @exclusivity(unchecked) private var stamps: [UInt32]
    @exclusivity(unchecked) private var base: UInt32 = 0
    /// A per-vertex value for a pass over the tree (the alternatives' shared weights), written before it is read;
    /// allocated on first use.
    @exclusivity(unchecked) var scratch: [Double] = []
    /// Vertices in the order they were settled (a reopened vertex appears again).
    @exclusivity(unchecked) private(set) var order: [Int32] = []
    @exclusivity(unchecked) private var heap = MinHeap()
    /// The workspace of hierarchy potentials, allocated on first use.
    @exclusivity(unchecked) private var hierarchyWorkspace: HierarchyPotential?

    /// The tree's workspace for hierarchy potentials.
    var hierarchyPotential: HierarchyPotential {
        if let hierarchyWorkspace { return hierarchyWorkspace }
        let made = HierarchyPotential(vertexCount: vertexCount)
        hierarchyWorkspace = made
        return made
    }

    init(vertexCount: Int) {
        self.vertexCount = vertexCount
        distances = [Double](repeating: .infinity, count: vertexCount)
        parents = [Int32](repeating: -1, count: vertexCount)
        potentials = [Double](repeating: 0, count: vertexCount)
        stamps = [UInt32](repeating: 0, count: vertexCount)
        reset()
    }

    /// Forgets the last search in O(1) (O(vertex count) once every ~1.4 billion searches, when the stamps wrap).
    func reset() {
        if base > UInt32.max - 6 {
            for v in stamps.indices { stamps[v] = 0 }
            base = 0
        }
        base += 3
        order.removeAll(keepingCapacity: true)
        heap.removeAll()
    }

    /// The weight from the seeds to `vertex` (to the seeds, backwards), `.infinity` when not reached.
    func distance(_ vertex: Int) -> Double { stamps[vertex] > base ? distances[vertex] : .infinity }
    /// The arc into `vertex` (out of it, backwards) on its tree path; -1 at a seed or when not reached.
    func parent(_ vertex: Int) -> Int32 { stamps[vertex] > base ? parents[vertex] : -1 }
    /// Whether `vertex` was settled with its current distance.
    func isSettled(_ vertex: Int) -> Bool { stamps[vertex] == base + 2 }

    /// ``scratch`` sized for the graph.
    func prepareScratch() {
        if scratch.count != vertexCount { scratch = [Double](repeating: 0, count: vertexCount) }
    }

    private func potential(_ vertex: Int, _ compute: (Int) -> Double) -> Double {
        if stamps[vertex] >= base { return potentials[vertex] }
        let value = compute(vertex)
        potentials[vertex] = value
        stamps[vertex] = base
        return value
    }

    /// Grows the tree from `seeds` (vertex, starting weight) until `stop(key)` says so for the next vertex to settle
    /// (its key is distance + potential), or every reachable vertex is settled. A vertex whose potential is infinite
    /// cannot reach the other end and is never entered. `settle` is told of each vertex as it is settled (again, if
    /// it is reopened).
    func grow(_ graph: RoadGraph, _ weights: RoadWeights, backwards: Bool, seeds: [(vertex: Int, weight: Double)],
              potential compute: (Int) -> Double = { _ in 0 }, stop: (Double) -> Bool = { _ in false },
              settle: (Int, Double) -> Void = { _, _ in }) {
        for seed in seeds where seed.weight < distance(seed.vertex) {
            let p = potential(seed.vertex, compute)
            guard p.isFinite else { continue }
            distances[seed.vertex] = seed.weight
            parents[seed.vertex] = -1
            stamps[seed.vertex] = base + 1
            heap.push(seed.weight + p, seed.vertex)
        }
        while let (key, vertex) = heap.pop() {
            // Not open: an entry left behind when the vertex was reached more cheaply (that entry came first).
            guard stamps[vertex] == base + 1 else { continue }
            if stop(key) { heap.push(key, vertex); return }
            stamps[vertex] = base + 2
            order.append(Int32(vertex))
            let weight = distances[vertex]
            settle(vertex, weight)
            relax(graph, weights, backwards: backwards, from: vertex, weight: weight, compute)
        }
    }

    /// Reaches the neighbours of `vertex` (settled at `weight`) through its allowed arcs.
    private func relax(_ graph: RoadGraph, _ weights: RoadWeights, backwards: Bool, from vertex: Int, weight: Double,
                       _ compute: (Int) -> Double) {
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
            guard candidate < distance(neighbour) else { continue }
            let p = potential(neighbour, compute)
            guard p.isFinite else { continue }
            distances[neighbour] = candidate
            parents[neighbour] = Int32(edge << 1 | (travelReversed ? 1 : 0))
            stamps[neighbour] = base + 1  // reopens a settled vertex: its distance was not exact
            heap.push(candidate + p, neighbour)
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
        while parent(v) >= 0 {
            arcs.append(parent(v))
            v = Self.otherEnd(graph, arc: parent(v), from: v)
        }
        return (backwards ? arcs : arcs.reversed(), v)
    }
}
