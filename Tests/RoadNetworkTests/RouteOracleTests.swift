import Foundation
import Testing
@testable import RoadNetwork

/// The router's best weights against independent searches: Dijkstra (``ShortestPaths``, itself checked against
/// Bellman–Ford) on the graph, or on a copy whose weights a brute-force overlay recomputed segment by segment.
@Suite("Routes against the Dijkstra oracle")
struct RouteOracleTests {
    static let cities: [(String, RoadRouter?)] = [("Krems", RouteFixtures.kremsRouter), ("Monaco", RouteFixtures.monacoRouter)]

    @Test("vertex to vertex: A* with landmarks finds Dijkstra's weight on 200 random pairs per city, with and without an overlay",
          arguments: [0, 1])
    func vertexPairs(city: Int) throws {
        let router = try #require(Self.cities[city].1)
        let graph = router.graph
        var generator = SeededGenerator(seed: 18 + UInt64(city))
        let overlay = try RouteFixtures.randomOverlay(graph, count: 400, using: &generator)
        let weights = router.weights(for: overlay)
        let plain = ShortestPaths(graph: graph), overlaid = ShortestPaths(graph: RouteFixtures.overlaid(graph, overlay))
        var unreachable = 0
        for _ in 0..<200 {
            let source = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let target = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let expected = plain.path(from: source, to: target)?.weight ?? .infinity
            let found = router.route(fromVertex: source, toVertex: target)?.weight ?? .infinity
            #expect(RouteFixtures.same(found, expected), "\(source) → \(target): \(found) vs \(expected)")
            let expectedOverlaid = overlaid.path(from: source, to: target)?.weight ?? .infinity
            let foundOverlaid = router.route(fromVertex: source, toVertex: target, weights: weights)?.weight ?? .infinity
            #expect(RouteFixtures.same(foundOverlaid, expectedOverlaid), "overlay \(source) → \(target): \(foundOverlaid) vs \(expectedOverlaid)")
            #expect(found.isInfinite || foundOverlaid >= found - 1e-9 * max(1, found))  // an overlay only raises weights
            if expected.isInfinite { unreachable += 1 }
        }
        #expect(unreachable < 100)  // most pairs are connected: the comparison is not vacuous
    }

    @Test("coordinate to coordinate: part-way routes match the brute-force best over both edges' ends, with and without an overlay",
          arguments: [0, 1])
    func coordinatePairs(city: Int) throws {
        let router = try #require(Self.cities[city].1)
        let graph = router.graph
        var generator = SeededGenerator(seed: 180 + UInt64(city))
        let overlay = try RouteFixtures.randomOverlay(graph, count: 400, using: &generator)
        let weights = router.weights(for: overlay)
        let overlaidGraph = RouteFixtures.overlaid(graph, overlay)
        var compared = 0
        for _ in 0..<200 {
            let a = Self.pointNear(graph, using: &generator), b = Self.pointNear(graph, using: &generator)
            let request = RouteRequest(origin: a, destination: b, snapRadius: 500)
            // The router's own snaps: which edge a point goes to is RouteMainNetworkTests' subject (the nearest, unless
            // the leg would not connect), the best route from there is this oracle's.
            guard let snaps = try? router.snap([a, b], radius: 500) else {
                #expect(throws: RouteError.self) { try router.route(request) }
                continue
            }
            let snapA = snaps[0], snapB = snaps[1]
            if snapA.edge == snapB.edge, abs(snapA.offset - snapB.offset) < 0.01 {
                #expect(throws: RouteError.coincidentPoints(leg: 0)) { try router.route(request) }
                continue
            }
            compared += 1
            let expected = RouteFixtures.bruteWeight(graph, from: snapA, to: snapB) { Self.piece(graph, .empty, $0, $1, $2) }
            let found = try router.route(request).routes.first?.weight ?? .infinity
            #expect(RouteFixtures.same(found, expected), "\(a) → \(b): \(found) vs \(expected)")
            let expectedOverlaid = RouteFixtures.bruteWeight(overlaidGraph, from: snapA, to: snapB) { Self.piece(graph, overlay, $0, $1, $2) }
            let route = try router.route(request, weights: weights).routes.first
            #expect(RouteFixtures.same(route?.weight ?? .infinity, expectedOverlaid), "overlay \(a) → \(b)")
            if let route {  // the totals are the sums of the segments, and the route joins up
                #expect(abs(route.weight - route.segments.reduce(0) { $0 + $1.weight }) <= 1e-6 * max(1, route.weight))
                for (one, next) in zip(route.segments, route.segments.dropFirst()) {
                    #expect(one.coordinates.last == next.coordinates.first || abs(one.coordinates.last!.latitude - next.coordinates.first!.latitude) < 1e-9)
                }
            }
        }
        #expect(compared >= 190)
    }

    /// A point up to ~100 m from a random shape point of `graph`.
    static func pointNear(_ graph: RoadGraph, using generator: inout SeededGenerator) -> RoadPoint {
        let point = Int.random(in: 0..<graph.shapeNodeIDs.count, using: &generator)
        return RoadPoint(latitude: graph.shapeLatitudes[point] + .random(in: -0.001...0.001, using: &generator),
                         longitude: graph.shapeLongitudes[point] + .random(in: -0.001...0.001, using: &generator))
    }

    /// Brute force: the weight of riding `edge` from offset `from` to `to`, summed over explicitly cut segments.
    static func piece(_ graph: RoadGraph, _ overlay: CostOverlay, _ edge: Int, _ from: Double, _ to: Double) -> Double {
        if from == to { return 0 }
        let reversed = from > to
        guard (reversed ? graph.edgeBackwardWeights[edge] : graph.edgeForwardWeights[edge]).isFinite else { return .infinity }
        let start = Int(graph.edgeShapeStarts[edge]), end = Int(graph.edgeShapeStarts[edge + 1])
        let perMetre = graph.ways.use(of: Int(graph.edgeWays[edge])).weightPerMetre
        var offsets = [0.0]
        for point in start..<(end - 1) {
            offsets.append(offsets.last! + RoadGraphBuilder.distance((graph.shapeLatitudes[point], graph.shapeLongitudes[point]),
                                                                     (graph.shapeLatitudes[point + 1], graph.shapeLongitudes[point + 1])))
        }
        var total = 0.0
        for index in 0..<(end - start - 1) {
            let a = offsets[index], b = offsets[index + 1]
            let overlap = max(0, min(b, max(from, to)) - max(a, min(from, to)))
            guard overlap > 0 else { continue }
            let nodes = (graph.shapeNodeIDs[start + index], graph.shapeNodeIDs[start + index + 1])
            let pair = reversed ? CostOverlay.NodePair(from: nodes.1, to: nodes.0) : CostOverlay.NodePair(from: nodes.0, to: nodes.1)
            let adjustment = overlay.adjustments[pair] ?? .init()
            total += overlap * perMetre * adjustment.factor + adjustment.penalty * overlap / (b - a)
        }
        return total
    }
}
