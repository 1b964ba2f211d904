extension RoadGraph {
    /// The strongly connected components over the arcs the profile allows (one-way streets count one way): the
    /// component of every vertex and each component's vertex count. Within one component every vertex reaches every
    /// other; a route between components exists only one way, if at all. Tarjan's algorithm without recursion (an
    /// explicit frame stack: a million-vertex graph must not overflow the thread's stack), linear in vertices + arcs.
    public func strongComponents() -> (componentOfVertex: [Int32], sizes: [Int]) {
        var search = StrongComponentSearch(vertexCount: vertexCount)
        for root in 0..<vertexCount where search.index[root] < 0 {
            search.run(from: root, in: self)
        }
        return (search.component, search.sizes)
    }

    /// The target of the allowed arc in adjacency slot `slot`, or `nil` when the profile forbids that direction.
    func allowedArcTarget(slot: Int) -> Int? {
        let encoded = Int(adjacency[slot])
        let edge = encoded >> 1, reversed = encoded & 1 == 1
        guard (reversed ? edgeBackwardWeights[edge] : edgeForwardWeights[edge]).isFinite else { return nil }
        return Int(reversed ? edgeSources[edge] : edgeTargets[edge])
    }
}

/// Tarjan's state: discovery index and low link per vertex, the component stack and the depth-first frames.
private struct StrongComponentSearch {
    var index: [Int32]
    var low: [Int32]
    var onStack: [Bool]
    var component: [Int32]
    var sizes: [Int] = []
    private var stack: [Int32] = []
    private var frames: [(vertex: Int, slot: Int)] = []
    private var counter: Int32 = 0

    init(vertexCount: Int) {
        index = [Int32](repeating: -1, count: vertexCount)
        low = [Int32](repeating: 0, count: vertexCount)
        onStack = [Bool](repeating: false, count: vertexCount)
        component = [Int32](repeating: -1, count: vertexCount)
    }

    /// Every component reachable from `root` that is not found yet.
    mutating func run(from root: Int, in graph: RoadGraph) {
        discover(root, in: graph)
        while let frame = frames.last {
            let vertex = frame.vertex, end = Int(graph.adjacencyStarts[vertex + 1])
            var slot = frame.slot, descended = false
            while slot < end, !descended {
                guard let next = graph.allowedArcTarget(slot: slot) else { slot += 1; continue }
                slot += 1
                if index[next] < 0 {
                    frames[frames.count - 1].slot = slot
                    discover(next, in: graph)
                    descended = true
                } else if onStack[next] {
                    low[vertex] = min(low[vertex], index[next])
                }
            }
            if !descended { finish(vertex) }
        }
    }

    private mutating func discover(_ vertex: Int, in graph: RoadGraph) {
        index[vertex] = counter
        low[vertex] = counter
        counter += 1
        stack.append(Int32(vertex))
        onStack[vertex] = true
        frames.append((vertex, Int(graph.adjacencyStarts[vertex])))
    }

    /// `vertex`'s arcs are all seen: pass its low link to its parent, and pop its component when it is the root of one.
    private mutating func finish(_ vertex: Int) {
        frames.removeLast()
        if let parent = frames.last { low[parent.vertex] = min(low[parent.vertex], low[vertex]) }
        guard low[vertex] == index[vertex] else { return }
        let id = Int32(sizes.count)
        var size = 0
        while let top = stack.popLast() {
            onStack[Int(top)] = false
            component[Int(top)] = id
            size += 1
            if Int(top) == vertex { break }
        }
        sizes.append(size)
    }
}
