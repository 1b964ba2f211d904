/// A contraction hierarchy of the graph on its base weights (Geisberger, Sanders, Schultes, Delling 2008), kept only
/// to give A* **exact lower bounds**: CH-Potentials (Strasser & Zeitz, *A fast and tight heuristic for A\* in road
/// networks*, 2021). Routes are still searched on the real weights — profile plus ``CostOverlay`` — so an overlay
/// needs no customisation pass: on base weights the potential is the exact remaining weight, and an overlay only
/// raises weights (scaled by ``CostOverlay/boundScale`` when it discounts), so it stays a lower bound.
///
/// Vertices are contracted one by one in the order of a lazily updated priority (edge difference, contracted
/// neighbours, level); contracting v adds a shortcut u → w for each pair of remaining neighbours whose cheapest
/// connection runs through v (a bounded *witness search* looks for another). Every arc left when a vertex is
/// contracted goes up the hierarchy: ``upward`` holds v → x (x contracted later), ``downward`` x → v stored at v. The
/// exact weight d(v, t) is then the smallest up-then-down path, read by ``HierarchyPotential``.
///
/// An arc that is the graph's own arc between its ends (no shortcut beat it) is not stored: the potential reads the
/// graph's arcs leading to higher ranks beside the stored ones (``forEachGraphArcUp(from:incoming:_:)``) — on the 1M
/// grid a third of the arcs, 3.8 M × 8 bytes.
///
/// Weights are stored as `Float` rounded down: a sum of them never exceeds the `Double` weight of the same path, so a
/// bound stays admissible, 4 bytes per arc cheaper.
public struct RoadHierarchy: Sendable {
    /// Each vertex's place in the contraction order (0 first): every arc of ``upward`` and ``downward`` leads to a
    /// higher one, which is what makes the potential's recursion end (checked on a cache read).
    let ranks: [Int32]
    /// Arcs going up from each vertex (CSR: `upward.starts[v]..<upward.starts[v + 1]`).
    let upward: ArcList
    /// Arcs coming down into each vertex from higher ones, by their tail (v ← x).
    let downward: ArcList
    /// The ``RoadGraph/fingerprint`` of the graph it was built for.
    let graphFingerprint: Int
    /// The graph (its arrays shared, not copied): its arcs complete ``upward`` and ``downward``.
    let graph: RoadGraph
    /// One bit per slot of the graph's adjacency rows: set where the slot's neighbour ranks higher than the row's
    /// vertex, so the potential skips the arcs leading down without reading their edges (0.46 MiB on the 1M grid).
    let upSlots: [UInt64]

    /// A compressed list of arcs per vertex.
    struct ArcList: Sendable {
        var starts: [Int32]
        var heads: [Int32]
        var weights: [Float]
        var count: Int { heads.count }
    }

    /// Shortcuts plus arcs kept (upward and downward together).
    public var arcCount: Int { upward.count + downward.count }
    /// Bytes of the arrays.
    public var memoryBytes: Int { (ranks.count + upward.starts.count + downward.starts.count) * 4 + arcCount * 8 }

    /// Graphs from this many vertices get a hierarchy (``RoadRouter``): below it landmark bounds already settle a few
    /// hundred vertices per route (`docs/road-network.md`, "Speed").
    public static let minimumVertexCount = 300_001

    /// Whether a graph of `vertexCount` vertices routes with a hierarchy (and no landmarks).
    public static func wanted(vertexCount: Int) -> Bool { vertexCount >= minimumVertexCount }

    /// The hierarchy of `graph` on its base weights.
    public init(graph: RoadGraph) {
        var builder = HierarchyBuilder(graph: graph)
        ranks = builder.contractAll()
        upward = builder.upward(leaving: graph)
        downward = builder.downward(leaving: graph)
        graphFingerprint = graph.fingerprint
        self.graph = graph
        upSlots = Self.upSlots(graph, ranks: ranks)
    }

    /// A hierarchy of `graph` read back from storage, unchecked (``problem(vertexCount:)`` checks it).
    init(ranks: [Int32], upward: ArcList, downward: ArcList, graph: RoadGraph) {
        self.ranks = ranks
        self.upward = upward
        self.downward = downward
        graphFingerprint = graph.fingerprint
        self.graph = graph
        upSlots = Self.upSlots(graph, ranks: ranks)
    }

    /// The bits of ``upSlots``. Every index is checked: a hierarchy read from a forged cache is built before the
    /// graph's and its own checks refuse it, and must not trap on the way.
    private static func upSlots(_ graph: RoadGraph, ranks: [Int32]) -> [UInt64] {
        let slots = graph.adjacency.count, edges = min(graph.edgeSources.count, graph.edgeTargets.count)
        var bits = [UInt64](repeating: 0, count: slots / 64 + 1)
        for v in 0..<max(0, min(ranks.count, graph.adjacencyStarts.count - 1)) {
            let start = max(0, Int(graph.adjacencyStarts[v])), end = min(slots, Int(graph.adjacencyStarts[v + 1]))
            guard start < end else { continue }
            for slot in start..<end {
                let encoded = Int(graph.adjacency[slot]), edge = encoded >> 1
                guard (0..<edges).contains(edge) else { continue }
                let x = Int(encoded & 1 == 1 ? graph.edgeSources[edge] : graph.edgeTargets[edge])
                if (0..<ranks.count).contains(x), ranks[x] > ranks[v] { bits[slot >> 6] |= 1 << UInt64(slot & 63) }
            }
        }
        return bits
    }

    /// Calls `body(x, weight)` for each arc of the graph between `v` and a neighbour `x` of higher rank — v → x, or
    /// x → v when `incoming` — with its base weight (allowed directions only).
    @inline(__always)
    func forEachGraphArcUp(from v: Int, incoming: Bool, _ body: (Int, Double) -> Void) {
        for slot in Int(graph.adjacencyStarts[v])..<Int(graph.adjacencyStarts[v + 1])
        where upSlots[slot >> 6] & (1 << UInt64(slot & 63)) != 0 {
            let encoded = Int(graph.adjacency[slot])
            let edge = encoded >> 1, reversed = encoded & 1 == 1
            let x = Int(reversed ? graph.edgeSources[edge] : graph.edgeTargets[edge])
            // v → x runs the edge forwards unless v is its target; x → v the other way.
            let weight = reversed != incoming ? graph.edgeBackwardWeights[edge] : graph.edgeForwardWeights[edge]
            if weight.isFinite { body(x, weight) }
        }
    }

    /// What is wrong with a hierarchy read from storage for a graph of `vertexCount` vertices, or `nil`: sizes, vertex
    /// indexes, ranks (a permutation, every arc leading higher — else the potential's recursion might not end) and
    /// weights (finite, not negative).
    func problem(vertexCount: Int) -> String? {
        guard ranks.count == vertexCount else { return "hierarchy ranks differ in length" }
        var seen = [Bool](repeating: false, count: vertexCount)
        for rank in ranks {
            guard (0..<Int32(clamping: vertexCount)).contains(rank), !seen[Int(rank)] else { return "hierarchy ranks are not a permutation" }
            seen[Int(rank)] = true
        }
        for (name, list) in [("upward", upward), ("downward", downward)] {
            guard list.starts.count == vertexCount + 1, list.starts.first == 0, Int(list.starts.last ?? -1) == list.heads.count,
                  list.weights.count == list.heads.count else { return "hierarchy \(name) arcs differ in length" }
            for v in 0..<vertexCount {
                let start = Int(list.starts[v]), end = Int(list.starts[v + 1])
                guard start <= end else { return "hierarchy \(name) arcs out of order" }
                for slot in start..<end {
                    let head = Int(list.heads[slot])
                    guard (0..<vertexCount).contains(head), ranks[head] > ranks[v] else { return "a hierarchy \(name) arc does not lead higher" }
                    guard list.weights[slot].isFinite, list.weights[slot] >= 0 else { return "a hierarchy weight is not a number ≥ 0" }
                }
            }
        }
        return nil
    }
}

/// The contraction itself: a dynamic graph of the vertices not yet contracted.
private struct HierarchyBuilder {
    struct Arc {
        var other: Int32
        var weight: Double
    }

    let vertexCount: Int
    /// Per vertex, arcs out of it and into it among vertices not yet contracted (while it is itself not contracted);
    /// once contracted, its arcs up the hierarchy.
    var outs: [[Arc]]
    var ins: [[Arc]]
    var contracted: [Bool]
    var levels: [Int32]
    var deletedNeighbours: [Int32]
    /// The last simulated edge difference of each vertex.
    var differences: [Int32]
    /// The witness search's workspace.
    var distances: [Double]
    var stamps: [UInt32]
    var stamp: UInt32 = 0
    var targetMarks: [UInt32]
    var targetMark: UInt32 = 0
    var heap = MinHeap()

    /// Vertices a witness search settles at most: beyond it a shortcut is added that may not be needed (correct, a
    /// little larger). Simulated contractions (priorities) look less far.
    /// (1M grid: 200/50 took 203 s to build — more shortcuts, a denser top — and 1,000/100 156 s, as 500/100 does.)
    static let witnessLimit = 500
    static let simulationLimit = 100

    init(graph: RoadGraph) {
        vertexCount = graph.vertexCount
        outs = [[Arc]](repeating: [], count: vertexCount)
        ins = [[Arc]](repeating: [], count: vertexCount)
        contracted = [Bool](repeating: false, count: vertexCount)
        levels = [Int32](repeating: 0, count: vertexCount)
        deletedNeighbours = [Int32](repeating: 0, count: vertexCount)
        differences = [Int32](repeating: 0, count: vertexCount)
        distances = [Double](repeating: .infinity, count: vertexCount)
        stamps = [UInt32](repeating: 0, count: vertexCount)
        targetMarks = [UInt32](repeating: 0, count: vertexCount)
        for edge in 0..<graph.edgeCount {
            let s = Int(graph.edgeSources[edge]), t = Int(graph.edgeTargets[edge])
            guard s != t else { continue }
            let forward = graph.edgeForwardWeights[edge], backward = graph.edgeBackwardWeights[edge]
            if forward.isFinite { addArc(s, t, forward) }
            if backward.isFinite { addArc(t, s, backward) }
        }
    }

    /// Adds u → w or lowers its weight.
    mutating func addArc(_ u: Int, _ w: Int, _ weight: Double) {
        if let i = outs[u].firstIndex(where: { $0.other == Int32(w) }) {
            if weight < outs[u][i].weight {
                outs[u][i].weight = weight
                if let j = ins[w].firstIndex(where: { $0.other == Int32(u) }) { ins[w][j].weight = weight }
            }
            return
        }
        outs[u].append(Arc(other: Int32(w), weight: weight))
        ins[w].append(Arc(other: Int32(u), weight: weight))
    }

    /// Dijkstra from `source` among uncontracted vertices other than `skip`, until every vertex marked a target
    /// (``markTargets(_:)``) is settled, `limit` vertices are settled or the next key exceeds `bound`; leaves
    /// distances readable by ``witness(_:)``.
    mutating func witnessSearch(from source: Int, skipping skip: Int, bound: Double, limit: Int, targets: Int) {
        stamp &+= 1
        if stamp == 0 {
            for v in stamps.indices { stamps[v] = 0 }
            stamp = 1
        }
        heap.removeAll()
        distances[source] = 0
        stamps[source] = stamp
        heap.push(0, source)
        var settled = 0, remaining = targets
        while let (key, v) = heap.pop() {
            guard key <= distances[v] else { continue }
            if key > bound || settled >= limit { break }
            settled += 1
            if targetMarks[v] == targetMark {
                remaining -= 1
                if remaining == 0 { break }
            }
            outs[v].withUnsafeBufferPointer { arcs in
                for arc in arcs {
                    let w = Int(arc.other)
                    guard w != skip else { continue }
                    let candidate = key + arc.weight
                    if stamps[w] != stamp || candidate < distances[w] {
                        stamps[w] = stamp
                        distances[w] = candidate
                        heap.push(candidate, w)
                    }
                }
            }
        }
    }

    /// Marks the vertices a witness search looks for; returns how many there are.
    mutating func markTargets(_ arcs: [Arc]) -> Int {
        targetMark &+= 1
        if targetMark == 0 {
            for v in targetMarks.indices { targetMarks[v] = 0 }
            targetMark = 1
        }
        for arc in arcs { targetMarks[Int(arc.other)] = targetMark }
        return arcs.count
    }

    func witness(_ v: Int) -> Double { stamps[v] == stamp ? distances[v] : .infinity }

    /// Contracts `v` (or, simulating, only counts): the shortcuts it needs. Returns how many.
    mutating func contract(_ v: Int, simulate: Bool) -> Int {
        var added = 0
        let ins = self.ins[v], outs = self.outs[v]
        guard !ins.isEmpty, !outs.isEmpty else { return 0 }
        let longestOut = outs.reduce(0) { max($0, $1.weight) }
        var shortcuts: [(Int, Int, Double)] = []
        let targets = markTargets(outs)
        for incoming in ins {
            let u = Int(incoming.other)
            // u itself may be one of the targets (u → v → u is no shortcut): it is settled first and counted.
            witnessSearch(from: u, skipping: v, bound: incoming.weight + longestOut,
                          limit: simulate ? Self.simulationLimit : Self.witnessLimit, targets: targets)
            for outgoing in outs where outgoing.other != incoming.other {
                let w = Int(outgoing.other)
                let via = incoming.weight + outgoing.weight
                if witness(w) <= via { continue }
                added += 1
                if !simulate { shortcuts.append((u, w, via)) }
            }
        }
        for (u, w, weight) in shortcuts { addArc(u, w, weight) }
        return added
    }

    /// The order's key of `v`: fewer arcs after contracting it first (its edge difference, simulated), spread over
    /// the graph (contracted neighbours), shallow hierarchies (level).
    mutating func priority(_ v: Int) -> Double {
        let added = contract(v, simulate: true)
        let removed = ins[v].count + outs[v].count
        differences[v] = Int32(added - removed)
        return cheapKey(v)
    }

    /// The key from the last simulated edge difference: cheap, for neighbours of a contracted vertex (the lazy check
    /// when a vertex comes first simulates again).
    func cheapKey(_ v: Int) -> Double {
        2 * Double(differences[v]) + Double(deletedNeighbours[v]) + Double(levels[v])
    }

    /// Removes `v` from its neighbours' lists (its own lists stay: they are its arcs up the hierarchy).
    mutating func detach(_ v: Int) {
        contracted[v] = true
        let me = Int32(v)
        var neighbours: [Int] = []
        for arc in outs[v] {
            let w = Int(arc.other)
            ins[w].removeAll { $0.other == me }
            neighbours.append(w)
        }
        for arc in ins[v] {
            let u = Int(arc.other)
            outs[u].removeAll { $0.other == me }
            neighbours.append(u)
        }
        for w in neighbours {
            deletedNeighbours[w] += 1
            levels[w] = max(levels[w], levels[v] + 1)
        }
    }

    /// Contracts every vertex; returns each one's rank.
    mutating func contractAll() -> [Int32] {
        var ranks = [Int32](repeating: 0, count: vertexCount)
        var next: Int32 = 0
        var queue = MinHeap()
        var current = [Double](repeating: 0, count: vertexCount)
        for v in 0..<vertexCount {
            current[v] = priority(v)
            queue.push(current[v], v)
        }
        while let (key, v) = queue.pop() {
            guard !contracted[v], key == current[v] else { continue }
            // Lazy update: the priority may have grown since it was queued.
            let fresh = priority(v)
            if let following = queue.smallestKey, fresh > following {
                current[v] = fresh
                queue.push(fresh, v)
                continue
            }
            _ = contract(v, simulate: false)
            detach(v)
            ranks[v] = next
            next += 1
            var touched = Set<Int>()
            for arc in outs[v] { touched.insert(Int(arc.other)) }
            for arc in ins[v] { touched.insert(Int(arc.other)) }
            for w in touched.sorted() where !contracted[w] {
                current[w] = cheapKey(w)
                queue.push(current[w], w)
            }
        }
        return ranks
    }

    /// The arcs up the hierarchy out of each vertex, but those `graph` has itself at no greater weight.
    func upward(leaving graph: RoadGraph) -> RoadHierarchy.ArcList {
        Self.list(outs) { v, arc in Self.graphWeight(graph, from: v, to: Int(arc.other)) <= arc.weight }
    }

    /// The arcs down into each vertex, by their tails (higher vertices), but those `graph` has itself at no greater
    /// weight.
    func downward(leaving graph: RoadGraph) -> RoadHierarchy.ArcList {
        Self.list(ins) { v, arc in Self.graphWeight(graph, from: Int(arc.other), to: v) <= arc.weight }
    }

    /// The smallest weight of the graph's own arcs u → w (`.infinity` without one).
    private static func graphWeight(_ graph: RoadGraph, from u: Int, to w: Int) -> Double {
        var best = Double.infinity
        graph.forEachArc(from: u) { arc in if arc.to == w { best = min(best, arc.weight) } }
        return best
    }

    private static func list(_ lists: [[Arc]], inGraph: (Int, Arc) -> Bool) -> RoadHierarchy.ArcList {
        var starts = [Int32](repeating: 0, count: lists.count + 1)
        var heads = [Int32](), weights = [Float]()
        for (v, arcs) in lists.enumerated() {
            for arc in arcs where !inGraph(v, arc) {
                heads.append(arc.other)
                weights.append(Self.below(arc.weight))
            }
            starts[v + 1] = Int32(heads.count)
        }
        return RoadHierarchy.ArcList(starts: starts, heads: heads.exactlySized, weights: weights.exactlySized)
    }

    /// The largest `Float` not above `weight`.
    static func below(_ weight: Double) -> Float {
        let rounded = Float(weight)
        return Double(rounded) > weight ? rounded.nextDown : rounded
    }
}
