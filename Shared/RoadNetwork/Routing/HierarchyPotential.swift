/// Exact base-weight distances to (or from) a set of seeds, read lazily from a ``RoadHierarchy``: the A* potential of
/// CH-Potentials (Strasser & Zeitz 2021).
///
/// ``prepare(_:seeds:towards:)`` runs one Dijkstra search up the hierarchy from the seeds (towards them: backwards,
/// over the arcs coming down into each vertex; from them: forwards, over the arcs going up) — the stored arcs and the
/// graph's own arcs to higher ranks (``RoadHierarchy/forEachGraphArcUp(from:incoming:_:)``). Then the weight from a
/// vertex v to the seeds is the smallest of v's own upward distance and, over v's arcs up to x, arc + value(x) — a
/// recursion up the hierarchy, memoised, so a search pays for each vertex of the hierarchy once. Because every
/// shortest path of a contraction hierarchy goes up and then down, the value is the exact distance on the base
/// weights (Float arcs rounded down: never above it).
///
/// A workspace: arrays sized for the graph, reset in O(1) by a generation stamp; used by one search at a time (each
/// ``SearchTree`` owns one).
final class HierarchyPotential {
    private let vertexCount: Int
    /// Per vertex: the value (final when `stamps[v] == base + 1`) or, while `stamps[v] == base`, the upward distance.
    private var values: [Double]
    private var stamps: [UInt32]
    private var base: UInt32 = 0
    private var heap = MinHeap()
    private var stack: [Int32] = []
    /// Whether values recurse over the upward arcs (towards seeds) or the downward ones (from seeds).
    private var towards = true

    /// How far a value may fall below the exact distance, relative to the distances involved (Float's 2⁻²⁴ per arc,
    /// with room for the sums).
    static let relativeSlack = 1e-6

    init(vertexCount: Int) {
        self.vertexCount = vertexCount
        values = [Double](repeating: .infinity, count: vertexCount)
        stamps = [UInt32](repeating: 0, count: vertexCount)
    }

    /// Starts a new potential: distances up the hierarchy from the seeds (each seed starting at its weight).
    func prepare(_ hierarchy: RoadHierarchy, seeds: [(vertex: Int, weight: Double)], towards: Bool) {
        if base > UInt32.max - 4 {
            for v in stamps.indices { stamps[v] = 0 }
            base = 0
        }
        base += 2
        self.towards = towards
        heap.removeAll()
        for seed in seeds where seed.weight.isFinite {
            if stamps[seed.vertex] != base || seed.weight < values[seed.vertex] {
                values[seed.vertex] = seed.weight
                stamps[seed.vertex] = base
                heap.push(seed.weight, seed.vertex)
            }
        }
        // Towards the seeds the search climbs against the arcs: the arcs down into a vertex, read from it.
        let arcs = towards ? hierarchy.downward : hierarchy.upward
        arcs.starts.withUnsafeBufferPointer { starts in
            arcs.heads.withUnsafeBufferPointer { heads in
                arcs.weights.withUnsafeBufferPointer { weights in
                    while let (key, v) = heap.pop() {
                        guard key <= values[v] else { continue }
                        func relax(_ x: Int, _ weight: Double) {
                            let candidate = key + weight
                            if stamps[x] != base || candidate < values[x] {
                                values[x] = candidate
                                stamps[x] = base
                                heap.push(candidate, x)
                            }
                        }
                        for slot in Int(starts[v])..<Int(starts[v + 1]) { relax(Int(heads[slot]), Double(weights[slot])) }
                        hierarchy.forEachGraphArcUp(from: v, incoming: towards, relax)
                    }
                }
            }
        }
    }

    /// The base-weight distance from `vertex` to the seeds (towards) or from the seeds to it; `.infinity` when none.
    func value(_ hierarchy: RoadHierarchy, _ vertex: Int) -> Double {
        if stamps[vertex] == base + 1 { return values[vertex] }
        let arcs = towards ? hierarchy.upward : hierarchy.downward
        return arcs.starts.withUnsafeBufferPointer { starts in
            arcs.heads.withUnsafeBufferPointer { heads in
                arcs.weights.withUnsafeBufferPointer { weights in
                    stack.removeAll(keepingCapacity: true)
                    stack.append(Int32(vertex))
                    while let top = stack.last {
                        let x = Int(top)
                        if stamps[x] == base + 1 { stack.removeLast(); continue }
                        // One pass over x's arcs: heads not final yet go on the stack (x is visited again after them);
                        // when all are final, the smallest is x's value.
                        var ready = true
                        var best = stamps[x] == base ? values[x] : .infinity
                        for slot in Int(starts[x])..<Int(starts[x + 1]) {
                            let h = Int(heads[slot])
                            if stamps[h] != base + 1 {
                                stack.append(heads[slot])
                                ready = false
                            } else if ready {
                                best = min(best, Double(weights[slot]) + values[h])
                            }
                        }
                        hierarchy.forEachGraphArcUp(from: x, incoming: !towards) { h, weight in
                            if stamps[h] != base + 1 {
                                stack.append(Int32(h))
                                ready = false
                            } else if ready {
                                best = min(best, weight + values[h])
                            }
                        }
                        guard ready else { continue }
                        values[x] = best
                        stamps[x] = base + 1
                        stack.removeLast()
                    }
                    return values[vertex]
                }
            }
        }
    }
}
