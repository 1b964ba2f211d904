/// Landmark distances for A* lower bounds (ALT: A*, landmarks, triangle inequality — Goldberg & Harrelson 2005), kept
/// compact: 2 bytes per landmark and direction per vertex.
///
/// For each landmark L the weights d(L, v) and d(v, L) on the profile's base weights. By the triangle inequality
/// d(v, t) ≥ d(L, t) − d(L, v) and d(v, t) ≥ d(v, L) − d(t, L), and the largest of these bounds d(v, t) from below under
/// every ``CostOverlay`` (an overlay only raises weights). Each column (a landmark, one direction) is stored as
/// `UInt16` steps of its own unit — its largest finite distance ÷ 65,000 — rounded down, with ``unreachable`` where
/// there is no path. A bound uses the step below the distance it adds and the step above the one it subtracts, so it
/// never overestimates; it is consistent only up to one unit (``maximumUnit``), which the searches allow for
/// (`SearchTree` reopens a vertex reached again more cheaply; `docs/road-network.md`, "Speed").
///
/// Landmarks are chosen in the largest weakly connected part of the graph, farthest first (each the vertex farthest
/// from those already chosen, round trip), deterministically. Computed once per graph — by ``init(graph:count:)`` or
/// read from the compiled cache with the graph (``LoadedRoadNetwork/landmarks``).
public struct RoadLandmarks: Sendable {
    /// The landmark vertices.
    public let vertices: [Int32]
    /// The unit of each column, equivalent metres per step: `units[i]` for d(landmark i, ·), `units[count + i]` for
    /// d(·, landmark i).
    let units: [Double]
    /// Row `v` (2 × ``count`` entries from `v × 2 × count`): the steps of d(landmark i, v), then of d(v, landmark i).
    let steps: [UInt16]
    /// Bytes of the arrays.
    var memoryBytes: Int { vertices.count * 4 + units.count * 8 + steps.count * 2 }
    /// The ``RoadGraph/fingerprint`` of the graph they were computed (or loaded) for.
    let graphFingerprint: Int

    /// A column's value where there is no path.
    static let unreachable = UInt16.max
    /// Steps of the largest finite distance of a column; the headroom below ``unreachable`` absorbs rounding.
    static let defaultLevels = 65_000.0
    /// The most landmarks a graph may have (a cache naming more is refused).
    static let maximumCount = 64

    /// How many landmarks there are.
    public var count: Int { vertices.count }
    /// The largest unit: how far a bound may fall short of consistency (equivalent metres).
    var maximumUnit: Double { units.max() ?? 0 }

    /// Landmarks by graph size: 16 (the usual ALT choice; returns diminish past it) on graphs that route without a
    /// hierarchy, none on those that have one (``RoadHierarchy/wanted(vertexCount:)``: its exact potentials replace
    /// the bounds; `docs/road-network.md`, "Speed").
    public static func defaultCount(vertexCount: Int) -> Int {
        RoadHierarchy.wanted(vertexCount: vertexCount) ? 0 : 16
    }

    /// The landmarks of `graph` on its base weights: `count` of them (by default ``defaultCount(vertexCount:)``; 0
    /// gives none, and searches become Dijkstra's). Runs 2 × `count` Dijkstra searches over the graph.
    public init(graph: RoadGraph, count: Int? = nil) {
        self.init(graph: graph, count: count ?? Self.defaultCount(vertexCount: graph.vertexCount), levels: Self.defaultLevels)
    }

    /// The same with `levels` steps for a column's largest distance (tests use coarse steps to prove exactness
    /// does not rest on fine ones).
    init(graph: RoadGraph, count wanted: Int, levels: Double) {
        let component = wanted > 0 ? Self.largestComponent(graph) : []
        let count = min(max(0, wanted), component.count, Self.maximumCount)
        let width = 2 * count
        var steps = [UInt16](repeating: Self.unreachable, count: graph.vertexCount * width)
        var units = [Double](repeating: 1, count: width)
        var chosen: [Int32] = []
        var isChosen = [Bool](repeating: false, count: graph.vertexCount)
        var nearest = [Double](repeating: .infinity, count: graph.vertexCount)  // min over chosen of d(L, v) + d(v, L)
        let weights = RoadWeights(graph: graph)
        let outward = SearchTree(vertexCount: graph.vertexCount), inward = SearchTree(vertexCount: graph.vertexCount)
        var next = component.first
        while chosen.count < count, let landmark = next {
            let column = chosen.count
            chosen.append(Int32(landmark))
            isChosen[landmark] = true
            outward.reset()
            outward.grow(graph, weights, backwards: false, seeds: [(landmark, 0)])
            inward.reset()
            inward.grow(graph, weights, backwards: true, seeds: [(landmark, 0)])
            units[column] = Self.store(outward, column: column, width: width, levels: levels, into: &steps)
            units[count + column] = Self.store(inward, column: count + column, width: width, levels: levels, into: &steps)
            next = nil
            var farthest = -1.0
            for v in component {
                let round = outward.distance(v) + inward.distance(v)
                nearest[v] = min(nearest[v], round.isFinite ? round : Double.greatestFiniteMagnitude)
                if !isChosen[v], nearest[v] > farthest { farthest = nearest[v]; next = v }
            }
        }
        vertices = chosen
        self.units = units
        self.steps = steps
        graphFingerprint = graph.fingerprint
    }

    /// Landmarks of `graph` read back from storage, unchecked (``problem(vertexCount:)`` checks them).
    init(vertices: [Int32], units: [Double], steps: [UInt16], graph: RoadGraph) {
        self.vertices = vertices
        self.units = units
        self.steps = steps
        graphFingerprint = graph.fingerprint
    }

    /// Writes the tree's distances into `column` as steps rounded down; returns the column's unit.
    private static func store(_ tree: SearchTree, column: Int, width: Int, levels: Double, into steps: inout [UInt16]) -> Double {
        var largest = 0.0
        for v in tree.order.indices { largest = max(largest, tree.distance(Int(tree.order[v]))) }
        let unit = largest > 0 ? largest / levels : 1
        for settled in tree.order {
            let v = Int(settled), distance = tree.distance(v)
            var step = min(levels, (distance / unit).rounded(.down))
            while step > 0, step * unit > distance { step -= 1 }  // never above the distance
            while (step + 1) * unit < distance { step += 1 }  // the next step is never below it
            steps[v * width + column] = UInt16(step)
        }
        return unit
    }

    /// The vertices of the largest weakly connected part (ties: the one holding the lowest vertex), ascending.
    static func largestComponent(_ graph: RoadGraph) -> [Int] {
        var parent = Array(0..<graph.vertexCount)
        func root(_ v: Int) -> Int {
            var v = v
            while parent[v] != v { parent[v] = parent[parent[v]]; v = parent[v] }
            return v
        }
        for edge in 0..<graph.edgeCount {
            let a = root(Int(graph.edgeSources[edge])), b = root(Int(graph.edgeTargets[edge]))
            if a != b { parent[max(a, b)] = min(a, b) }
        }
        var sizes = [Int](repeating: 0, count: graph.vertexCount)
        for v in 0..<graph.vertexCount { sizes[root(v)] += 1 }
        guard let biggest = sizes.indices.max(by: { (sizes[$0], -$0) < (sizes[$1], -$1) }) else { return [] }
        return (0..<graph.vertexCount).filter { root($0) == biggest }
    }
}
