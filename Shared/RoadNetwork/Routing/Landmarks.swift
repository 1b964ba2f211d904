/// Landmark distances for A* lower bounds (ALT: A*, landmarks, triangle inequality — Goldberg & Harrelson 2005).
///
/// For each landmark L the exact weights d(L, v) and d(v, L) on the profile's base weights. By the triangle
/// inequality d(v, t) ≥ d(L, t) − d(L, v) and d(v, t) ≥ d(v, L) − d(t, L); the largest of these over the landmarks is
/// a lower bound on d(v, t), consistent (a feasible potential), and it stays one under every ``CostOverlay`` because an
/// overlay only raises weights. Landmarks are chosen in the largest weakly connected part of the graph, farthest
/// first (each the vertex farthest from those already chosen), deterministically.
struct Landmarks: Sendable {
    /// The landmark vertices.
    let vertices: [Int]
    /// `from[v × count + i]` = d(landmark i, v); `.infinity` when unreachable.
    private let from: [Double]
    /// `to[v × count + i]` = d(v, landmark i).
    private let to: [Double]

    var count: Int { vertices.count }

    init(graph: RoadGraph, weights: RoadWeights, count wanted: Int) {
        let component = Self.largestComponent(graph)
        var chosen: [Int] = []
        var fromRows: [[Double]] = [], toRows: [[Double]] = []
        var nearest = [Double](repeating: .infinity, count: graph.vertexCount)  // min over chosen of d(L, v) + d(v, L)
        var next = component.first
        while chosen.count < min(wanted, component.count), let landmark = next {
            chosen.append(landmark)
            var tree = SearchTree(vertexCount: graph.vertexCount)
            tree.grow(graph, weights, backwards: false, seeds: [(landmark, 0)])
            fromRows.append(tree.distance)
            tree = SearchTree(vertexCount: graph.vertexCount)
            tree.grow(graph, weights, backwards: true, seeds: [(landmark, 0)])
            toRows.append(tree.distance)
            for v in component {
                let round = fromRows.last![v] + toRows.last![v]
                nearest[v] = min(nearest[v], round.isFinite ? round : Double.greatestFiniteMagnitude)
            }
            next = component.filter { !chosen.contains($0) }.max { (nearest[$0], -$0) < (nearest[$1], -$1) }
        }
        vertices = chosen
        var from = [Double](repeating: .infinity, count: graph.vertexCount * chosen.count)
        var to = from
        for v in 0..<graph.vertexCount {
            for i in 0..<chosen.count {
                from[v * chosen.count + i] = fromRows[i][v]
                to[v * chosen.count + i] = toRows[i][v]
            }
        }
        self.from = from
        self.to = to
    }

    /// A lower bound on the weight from `v` to `t` under any overlay; `.infinity` when `v` cannot reach `t` at all.
    func lowerBound(from v: Int, to t: Int) -> Double {
        var bound = 0.0
        let k = vertices.count
        for i in 0..<k {
            let landmarkToT = from[t * k + i], landmarkToV = from[v * k + i]
            if landmarkToT.isFinite {
                if landmarkToV.isFinite { bound = max(bound, landmarkToT - landmarkToV) }
            } else if landmarkToV.isFinite {
                return .infinity  // L reaches v but not t: neither does v
            }
            let vToLandmark = to[v * k + i], tToLandmark = to[t * k + i]
            if vToLandmark.isFinite {
                if tToLandmark.isFinite { bound = max(bound, vToLandmark - tToLandmark) }
            } else if tToLandmark.isFinite {
                return .infinity  // t reaches L but v does not: v cannot reach t
            }
        }
        return bound
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
        var sizes: [Int: Int] = [:]
        for v in 0..<graph.vertexCount { sizes[root(v), default: 0] += 1 }
        guard let biggest = sizes.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) })?.key else { return [] }
        return (0..<graph.vertexCount).filter { root($0) == biggest }
    }
}
