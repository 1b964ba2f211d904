import Foundation
@testable import RoadNetwork
import Testing

/// The community layer: approved paths, conditions, obstacles and street marks as one cost overlay, and routes that
/// switch to an approved path and back when it is retired.
@Suite("Community layer: waypoint.paths as a cost overlay")
struct CommunityLayerTests {
    static func pair(_ a: Int64, _ b: Int64) -> CostOverlay.NodePair { CostOverlay.NodePair(from: a, to: b) }

    @Test("conditions, overlaps, obstacles by type and confidence, marks, retirement and resolution")
    func folding() throws {
        var layer = CommunityLayer()
        layer.approve(path: "a", nodes: [1, 2, 3], condition: "medium")
        layer.approve(path: "b", nodes: [3, 2], condition: "optimal")
        var overlay = try layer.overlay()
        #expect(overlay.adjustments[Self.pair(1, 2)]?.factor == 0.85 && overlay.adjustments[Self.pair(2, 1)]?.factor == 0.85)
        #expect(overlay.adjustments[Self.pair(2, 3)]?.factor == 0.7 && overlay.adjustments[Self.pair(3, 2)]?.factor == 0.7, "the best condition counts")
        #expect(overlay.boundScale == 0.7)
        layer.setCondition(path: "b", condition: "requires-maintenance")
        #expect(try layer.overlay().adjustments[Self.pair(2, 3)]?.factor == 0.85)
        layer.confirm(obstacle: "o1", nodes: [2, 3], type: "roadworks", confidence: 0.5)
        layer.confirm(obstacle: "o2", nodes: [3, 2], type: "glass", confidence: 1)
        overlay = try layer.overlay()
        #expect(overlay.adjustments[Self.pair(2, 3)]?.penalty == 230 && overlay.adjustments[Self.pair(3, 2)]?.penalty == 230)
        layer.confirm(obstacle: "o3", nodes: [7, 8], type: "dragon", confidence: 2)
        #expect(try layer.overlay().adjustments[Self.pair(8, 7)] == CostOverlay.Adjustment(factor: 1, penalty: 50), "unknown type: other; confidence capped at 1")
        layer.mark(street: 10, nodes: [[1, 2], [8, 9]], incompatible: true)
        overlay = try layer.overlay()
        #expect(abs((overlay.adjustments[Self.pair(1, 2)]?.factor ?? 0) - 0.85 * 3) < 1e-12 && overlay.adjustments[Self.pair(9, 8)]?.factor == 3)
        layer.mark(street: 10, nodes: [[1, 2], [8, 9]], incompatible: false)
        layer.retire(path: "a")
        layer.retire(path: "b")
        layer.resolve(obstacle: "o1")
        layer.resolve(obstacle: "o2")
        layer.resolve(obstacle: "o3")
        #expect(try layer.overlay().isEmpty && layer.counts == (0, 0, 0))
        layer.confirm(obstacle: "lonely", nodes: [5], type: "pothole", confidence: 1)
        #expect(try layer.overlay().isEmpty, "an obstacle without a segment changes nothing")
    }

    @Test("Krems: a route switches to a newly approved optimal path along its alternative, and back when the path is retired; exact under the overlay")
    func switching() throws {
        let graph = try #require(RouteFixtures.kremsGraph)
        let router = try #require(RouteFixtures.kremsRouter)
        var generator = SeededGenerator(seed: 2_120)
        var switched = 0, tried = 0
        while switched < 5 && tried < 400 {
            tried += 1
            let a = Int.random(in: 0..<graph.vertexCount, using: &generator), b = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let request = RouteRequest(origin: RoadPoint(latitude: graph.vertexLatitudes[a], longitude: graph.vertexLongitudes[a]),
                                       destination: RoadPoint(latitude: graph.vertexLatitudes[b], longitude: graph.vertexLongitudes[b]),
                                       alternatives: 1)
            guard a != b, let routes = try? router.route(request).routes, routes.count == 2 else { continue }
            let (best, alternative) = (routes[0], routes[1])
            var layer = CommunityLayer()
            layer.approve(path: "p", nodes: alternative.nodeIDs, condition: "optimal")
            let overlay = try layer.overlay()
            let weights = router.weights(for: overlay)
            let expected = try #require(ShortestPaths(graph: RouteFixtures.overlaid(graph, overlay)).path(from: a, to: b)).weight
            let now = try #require(router.route(request, weights: weights).routes.first)
            #expect(RouteFixtures.same(now.weight, expected), "exact under the discount: \(now.weight) vs \(expected)")
            guard now.nodeIDs != best.nodeIDs else { continue }
            switched += 1
            let onPath = Set(zip(alternative.nodeIDs, alternative.nodeIDs.dropFirst()).map { [min($0, $1), max($0, $1)] })
            let ridden = zip(now.nodeIDs, now.nodeIDs.dropFirst()).map { [min($0, $1), max($0, $1)] }
            #expect(Double(ridden.filter(onPath.contains).count) >= 0.5 * Double(ridden.count), "the new best rides the approved path")
            layer.retire(path: "p")
            let back = try #require(router.route(request, weights: router.weights(for: try layer.overlay())).routes.first)
            #expect(back.nodeIDs == best.nodeIDs, "retired: the old best again")
        }
        #expect(switched >= 5, "only \(switched) of \(tried) pairs switched")
    }
}
