import Foundation
import Testing
@testable import RoadNetwork

/// Compact landmarks (2-byte steps rounded so bounds never overestimate) and the search that stays exact although
/// their potential is consistent only up to a step: checked against Dijkstra (``ShortestPaths``) on real extracts and
/// a synthetic grid, with fine steps and with deliberately coarse ones (8 steps a column, so vertices are reopened).
@Suite("Compact landmarks and exact search")
struct RouteLandmarkTests {
    static let grid: RoadGraph? = try? GridFixture.graph(size: 30, seed: 7)

    /// Krems, Monaco, the 30 × 30 grid.
    static func graph(_ index: Int) throws -> RoadGraph {
        try #require([RouteFixtures.kremsGraph, RouteFixtures.monacoGraph, grid][index])
    }

    /// `graph` with every edge's two directions swapped: Dijkstra from t on it gives d(v, t) for every v.
    static func reversed(_ graph: RoadGraph) -> RoadGraph {
        var copy = graph
        copy.edgeForwardWeights = graph.edgeBackwardWeights
        copy.edgeBackwardWeights = graph.edgeForwardWeights
        return copy
    }

    @Test("every bound is at most the Dijkstra weight, and infinite only where there is no route (fine and coarse steps)",
          arguments: [0, 1, 2])
    func admissible(graphIndex: Int) throws {
        let graph = try Self.graph(graphIndex)
        let dijkstra = ShortestPaths(graph: graph), backwards = ShortestPaths(graph: Self.reversed(graph))
        var generator = SeededGenerator(seed: 4_200 + UInt64(graphIndex))
        for levels in [RoadLandmarks.defaultLevels, 8] {
            let landmarks = RoadLandmarks(graph: graph, count: 16, levels: levels)
            #expect(landmarks.count == 16)
            var positive = 0
            for _ in 0..<10 {
                let vertex = Int.random(in: 0..<graph.vertexCount, using: &generator)
                let from = dijkstra.weights(from: vertex), to = backwards.weights(from: vertex)
                let anchor = landmarks.anchor(vertex)
                for v in 0..<graph.vertexCount {
                    let outward = landmarks.bound(from: anchor, to: v), inward = landmarks.bound(from: v, to: anchor)
                    // At most the weight, but for rounding in Dijkstra's own sums (1e-9 relative).
                    #expect(outward <= from[v] * (1 + 1e-9) && inward <= to[v] * (1 + 1e-9), "levels \(levels): \(vertex) ↔ \(v)")
                    #expect(outward.isFinite || from[v].isInfinite)
                    #expect(inward.isFinite || to[v].isInfinite)
                    if outward > 0 { positive += 1 }
                }
            }
            #expect(positive > graph.vertexCount)  // the bounds are not vacuous
        }
    }

    @Test("A* with coarse landmarks reopens vertices and still finds Dijkstra's weight on 150 pairs, with and without an overlay",
          arguments: [0, 1, 2])
    func coarseIsExact(graphIndex: Int) throws {
        let graph = try Self.graph(graphIndex)
        let router = RoadRouter(graph: graph, landmarks: RoadLandmarks(graph: graph, count: 16, levels: 8))
        var generator = SeededGenerator(seed: 4_300 + UInt64(graphIndex))
        let overlay = try RouteFixtures.randomOverlay(graph, count: 300, using: &generator)
        let weights = router.weights(for: overlay)
        let plain = ShortestPaths(graph: graph), overlaid = ShortestPaths(graph: RouteFixtures.overlaid(graph, overlay))
        var connected = 0, reopened = 0
        for _ in 0..<150 {
            let source = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let target = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let expected = plain.path(from: source, to: target)?.weight ?? .infinity
            #expect(RouteFixtures.same(router.route(fromVertex: source, toVertex: target)?.weight ?? .infinity, expected), "\(source) → \(target)")
            let expectedOverlaid = overlaid.path(from: source, to: target)?.weight ?? .infinity
            let found = router.route(fromVertex: source, toVertex: target, weights: weights)?.weight ?? .infinity
            #expect(RouteFixtures.same(found, expectedOverlaid), "overlay \(source) → \(target): \(found) vs \(expectedOverlaid)")
            if expected.isFinite { connected += 1 }
            let tree = SearchTree(vertexCount: graph.vertexCount)
            let seed = Seed(vertex: target, weight: 0, piece: nil)
            tree.grow(graph, weights, backwards: false, seeds: [(source, 0)], potential: router.potential(towards: [seed]))
            reopened += tree.order.count - Set(tree.order).count
        }
        #expect(connected > 75)
        #expect(reopened > 0)  // the coarse potential is inconsistent: the reopening path was exercised
    }

    /// Every alternative of `routes` within the stretch, sharing little enough with each better one, and locally
    /// optimal by `dijkstra` (the graph's weights as the routes were searched under).
    static func expectRules(_ routes: [RoadRoute], _ rules: AlternativeRules, vertexOf: [Int64: Int], dijkstra: ShortestPaths) {
        for (index, route) in routes.enumerated().dropFirst() {
            #expect(route.weight <= rules.maximumStretch * routes[0].weight * (1 + 1e-9))
            for better in routes[..<index] {
                #expect(RouteAlternativeTests.shared(route, better) <= rules.maximumSharing * better.weight * (1 + 1e-9))
            }
            #expect(RouteAlternativeTests.locallyOptimal(route, vertexOf: vertexOf, dijkstra: dijkstra, window: rules.minimumPlateau * routes[0].weight))
        }
    }

    /// Best + 2 alternatives between `pairs` random connected vertex pairs of `graph` under `weights`: the best weight
    /// is Dijkstra's (`dijkstra`: the graph as weighted) and the alternatives obey the rules. Returns how many
    /// alternatives there were.
    static func expectAlternatives(_ router: RoadRouter, _ graph: RoadGraph, weights: RoadWeights, dijkstra: ShortestPaths, pairs wanted: Int,
                                   using generator: inout SeededGenerator) throws -> Int {
        let vertexOf = Dictionary(uniqueKeysWithValues: graph.vertexNodeIDs.enumerated().map { ($1, $0) })
        var pairs = 0, alternatives = 0
        while pairs < wanted {
            let a = Int.random(in: 0..<graph.vertexCount, using: &generator), b = Int.random(in: 0..<graph.vertexCount, using: &generator)
            guard a != b, let best = dijkstra.path(from: a, to: b) else { continue }
            pairs += 1
            let request = RouteRequest(origin: RoadPoint(latitude: graph.vertexLatitudes[a], longitude: graph.vertexLongitudes[a]),
                                       destination: RoadPoint(latitude: graph.vertexLatitudes[b], longitude: graph.vertexLongitudes[b]), alternatives: 2)
            let routes = try router.route(request, weights: weights).routes
            try #require(!routes.isEmpty)
            #expect(RouteFixtures.same(routes[0].weight, best.weight) || routes[0].weight < best.weight)
            alternatives += routes.count - 1
            expectRules(routes, router.alternativeRules, vertexOf: vertexOf, dijkstra: dijkstra)
        }
        return alternatives
    }

    @Test("with coarse landmarks every alternative still obeys the rules and the best route is Dijkstra's", arguments: [0, 2])
    func coarseAlternatives(graphIndex: Int) throws {
        let graph = try Self.graph(graphIndex)
        let coarse = RoadRouter(graph: graph, landmarks: RoadLandmarks(graph: graph, count: 16, levels: 8))
        var generator = SeededGenerator(seed: 4_400 + UInt64(graphIndex))
        let alternatives = try Self.expectAlternatives(coarse, graph, weights: coarse.baseWeights, dijkstra: ShortestPaths(graph: graph), pairs: 25,
                                                       using: &generator)
        #expect(alternatives > 0)
    }

    @Test("discounts (factors down to 0.5, as approved paths bring): A* with default and coarse landmarks equals Dijkstra on the overlaid graph; alternatives obey the rules under the overlay",
          arguments: [0, 1, 2])
    func discounts(graphIndex: Int) throws {
        let graph = try Self.graph(graphIndex)
        var generator = SeededGenerator(seed: 4_600 + UInt64(graphIndex))
        let overlay = try RouteFixtures.randomOverlay(graph, count: graph.edgeCount * 2, factors: 0.5...1.2, penalties: false, using: &generator)
        #expect(overlay.boundScale < 0.51 && overlay.boundScale >= CostOverlay.minimumFactor)
        let overlaidGraph = RouteFixtures.overlaid(graph, overlay)
        let overlaid = ShortestPaths(graph: overlaidGraph)
        var cheaper = 0, alternatives = 0
        for router in [RoadRouter(graph: graph), RoadRouter(graph: graph, landmarks: RoadLandmarks(graph: graph, count: 16, levels: 8))] {
            let weights = router.weights(for: overlay)
            for _ in 0..<120 {
                let source = Int.random(in: 0..<graph.vertexCount, using: &generator)
                let target = Int.random(in: 0..<graph.vertexCount, using: &generator)
                let expected = overlaid.path(from: source, to: target)?.weight ?? .infinity
                let found = router.route(fromVertex: source, toVertex: target, weights: weights)?.weight ?? .infinity
                #expect(RouteFixtures.same(found, expected), "\(source) → \(target): \(found) vs \(expected)")
                if let base = router.route(fromVertex: source, toVertex: target)?.weight, found < base * (1 - 1e-9) { cheaper += 1 }
            }
            alternatives += try Self.expectAlternatives(router, graph, weights: weights, dijkstra: overlaid, pairs: 15, using: &generator)
        }
        #expect(cheaper > 50, "the discounts change routes: \(cheaper) of 240 got cheaper")
        #expect(alternatives > 0)
    }

    @Test("on the grid, A* with the default landmarks equals Dijkstra on 200 pairs with and without an overlay, settling fewer vertices")
    func gridMatchesDijkstra() throws {
        let graph = try Self.graph(2)
        let router = RoadRouter(graph: graph), plain = RoadRouter(graph: graph, landmarkCount: 0)
        var generator = SeededGenerator(seed: 4_500)
        let overlay = try RouteFixtures.randomOverlay(graph, count: 300, using: &generator)
        let weights = router.weights(for: overlay)
        let dijkstra = ShortestPaths(graph: graph), overlaid = ShortestPaths(graph: RouteFixtures.overlaid(graph, overlay))
        var withLandmarks = 0, without = 0
        for _ in 0..<200 {
            let source = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let target = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let expected = dijkstra.path(from: source, to: target)?.weight ?? .infinity
            #expect(RouteFixtures.same(router.route(fromVertex: source, toVertex: target)?.weight ?? .infinity, expected))
            let expectedOverlaid = overlaid.path(from: source, to: target)?.weight ?? .infinity
            #expect(RouteFixtures.same(router.route(fromVertex: source, toVertex: target, weights: weights)?.weight ?? .infinity, expectedOverlaid))
            withLandmarks += router.searchEffort(fromVertex: source, toVertex: target)
            without += plain.searchEffort(fromVertex: source, toVertex: target)
        }
        print("grid 30 × 30 (\(graph.vertexCount) vertices): ALT settles \(withLandmarks / 200), Dijkstra \(without / 200) per route")
        #expect(withLandmarks * 2 < without)
    }
}
