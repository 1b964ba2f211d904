import Foundation
@testable import RoadNetwork

/// Graphs, routers, seeded randomness and brute-force oracles shared by the route tests.
enum RouteFixtures {
    static let kremsGraph: RoadGraph? = try? RoadGraphBuilder().build([OSMFixtures.krems]).graph
    static let monacoGraph: RoadGraph? = try? RoadGraphBuilder().build([OSMFixtures.monaco]).graph
    static let kremsRouter: RoadRouter? = kremsGraph.map { RoadRouter(graph: $0) }
    static let monacoRouter: RoadRouter? = monacoGraph.map { RoadRouter(graph: $0) }

    /// A graph built from an OSM XML document.
    static func graph(_ document: String) throws -> RoadGraph {
        try RoadGraphTests.build(document).0
    }

    /// An overlay on `count` random segments of `graph`, in random directions: factors in `factors` (1–3 by default;
    /// below 1 a discount, as an approved path in good condition), penalties 0–200 m (`penalties: false`: none).
    static func randomOverlay(_ graph: RoadGraph, count: Int, factors: ClosedRange<Double> = 1...3, penalties: Bool = true,
                              using generator: inout SeededGenerator) throws -> CostOverlay {
        var adjustments: [CostOverlay.NodePair: CostOverlay.Adjustment] = [:]
        for _ in 0..<count {
            let edge = Int.random(in: 0..<graph.edgeCount, using: &generator)
            let nodes = Array(graph.shapeNodes(of: edge))
            let index = Int.random(in: 0..<(nodes.count - 1), using: &generator)
            let pair = Bool.random(using: &generator) ? CostOverlay.NodePair(from: nodes[index], to: nodes[index + 1])
                                                      : CostOverlay.NodePair(from: nodes[index + 1], to: nodes[index])
            adjustments[pair] = CostOverlay.Adjustment(factor: Double.random(in: factors, using: &generator),
                                                       penalty: penalties ? Double.random(in: 0...200, using: &generator) : 0)
        }
        return try CostOverlay(adjustments)
    }

    /// Brute force, independent of ``RoadWeights``: `graph` with every edge's weight recomputed segment by segment
    /// (length × weight per metre × factor + penalty), for ``ShortestPaths`` to search.
    static func overlaid(_ graph: RoadGraph, _ overlay: CostOverlay) -> RoadGraph {
        var copy = graph
        for edge in 0..<graph.edgeCount {
            let nodes = Array(graph.shapeNodes(of: edge))
            let start = Int(graph.edgeShapeStarts[edge])
            let perMetre = graph.ways.use(of: Int(graph.edgeWays[edge])).weightPerMetre
            var forward = 0.0, backward = 0.0
            for index in 0..<(nodes.count - 1) {
                let length = RoadGraphBuilder.distance((graph.shapeLatitudes[start + index], graph.shapeLongitudes[start + index]),
                                                       (graph.shapeLatitudes[start + index + 1], graph.shapeLongitudes[start + index + 1]))
                let ahead = overlay.adjustments[.init(from: nodes[index], to: nodes[index + 1])] ?? .init()
                let back = overlay.adjustments[.init(from: nodes[index + 1], to: nodes[index])] ?? .init()
                forward += length * perMetre * ahead.factor + ahead.penalty
                backward += length * perMetre * back.factor + back.penalty
            }
            if graph.edgeForwardWeights[edge].isFinite { copy.edgeForwardWeights[edge] = forward }
            if graph.edgeBackwardWeights[edge].isFinite { copy.edgeBackwardWeights[edge] = backward }
        }
        return copy
    }

    /// Brute force: the weight from snapped point `a` to snapped point `b` — the best of the direct piece and every
    /// combination of an end of `a`'s edge, a Dijkstra path on `oracle` (a graph already carrying the overlay's
    /// weights) and an end of `b`'s edge, pieces priced by `pieceWeight`.
    static func bruteWeight(_ oracle: RoadGraph, from a: SnapIndex.Snap, to b: SnapIndex.Snap,
                            pieceWeight: (Int, Double, Double) -> Double) -> Double {
        let lengthA = oracle.edgeLengths[a.edge], lengthB = oracle.edgeLengths[b.edge]
        let starts = [(Int(oracle.edgeTargets[a.edge]), pieceWeight(a.edge, a.offset, lengthA)),
                      (Int(oracle.edgeSources[a.edge]), pieceWeight(a.edge, a.offset, 0))]
        let ends = [(Int(oracle.edgeSources[b.edge]), pieceWeight(b.edge, 0, b.offset)),
                    (Int(oracle.edgeTargets[b.edge]), pieceWeight(b.edge, lengthB, b.offset))]
        var best = a.edge == b.edge ? pieceWeight(a.edge, a.offset, b.offset) : .infinity
        let dijkstra = ShortestPaths(graph: oracle)
        for (vertex, first) in starts where first.isFinite {
            let weights = dijkstra.weights(from: vertex)
            for (end, last) in ends { best = min(best, first + weights[end] + last) }
        }
        return best
    }

    /// Relative equality for weights (1e-9), both infinite counting as equal.
    static func same(_ a: Double, _ b: Double) -> Bool {
        if a.isInfinite || b.isInfinite { return a == b }
        return abs(a - b) <= 1e-9 * max(1, abs(b))
    }
}

/// SplitMix64: a seeded generator, so a failing pair can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
