import Foundation
import Testing
@testable import RoadNetwork

/// The router's search workspaces: allocated once, reused by every query, safe under concurrent requests.
@Suite("Route search workspaces")
struct RouteWorkspaceTests {
    /// 60 random coordinate pairs in `graph` (near shape points).
    static func requests(_ graph: RoadGraph, seed: UInt64, alternatives: Int) -> [RouteRequest] {
        var generator = SeededGenerator(seed: seed)
        return (0..<60).map { _ in
            RouteRequest(origin: RouteOracleTests.pointNear(graph, using: &generator), destination: RouteOracleTests.pointNear(graph, using: &generator),
                         alternatives: alternatives, snapRadius: 500)
        }
    }

    @Test("120 queries (best routes, then best + 2 alternatives) allocate 3 search trees and reuse them")
    func reused() throws {
        let router = RoadRouter(graph: try #require(RouteFixtures.kremsGraph))
        #expect(router.trees.treesCreated == 0)
        for request in Self.requests(router.graph, seed: 1, alternatives: 0) { _ = try? router.route(request) }
        #expect(router.trees.treesCreated == 1)
        for request in Self.requests(router.graph, seed: 2, alternatives: 2) { _ = try? router.route(request) }
        #expect(router.trees.treesCreated <= 3)  // forward, backward, and one for the local-optimality test
    }

    @Test("queries from 8 concurrent tasks, with and without an overlay, give the sequential answers")
    func concurrent() async throws {
        let router = RoadRouter(graph: try #require(RouteFixtures.monacoGraph))
        var generator = SeededGenerator(seed: 3)
        let weights = router.weights(for: try RouteFixtures.randomOverlay(router.graph, count: 200, using: &generator))
        let requests = Self.requests(router.graph, seed: 4, alternatives: 2) + Self.requests(router.graph, seed: 5, alternatives: 0)
        @Sendable func answers(_ weights: RoadWeights?) -> [String] {
            requests.map { request in
                do { return "\(try router.route(request, weights: weights))" } catch { return "\(error)" }
            }
        }
        let sequential = [answers(nil), answers(weights)]
        let concurrent = await withTaskGroup(of: (Int, [String]).self) { group in
            for task in 0..<8 { group.addTask { (task, answers(task % 2 == 0 ? nil : weights)) } }
            return await group.reduce(into: [Int: [String]]()) { $0[$1.0] = $1.1 }
        }
        for (task, result) in concurrent { #expect(result == sequential[task % 2], "task \(task)") }
        #expect(concurrent.count == 8)
        #expect(router.trees.treesCreated <= 3 * 8)
    }

    @Test("a tree's reset forgets the last search in O(1), and a search after many resets sees none of the old ones")
    func generations() throws {
        let graph = try #require(RouteFixtures.kremsGraph)
        let tree = SearchTree(vertexCount: graph.vertexCount)
        let weights = RoadWeights(graph: graph)
        tree.grow(graph, weights, backwards: false, seeds: [(0, 0)])
        let reached = (0..<graph.vertexCount).filter { tree.distance($0).isFinite }
        #expect(reached.count > 1)
        for _ in 0..<1_000 { tree.reset() }
        #expect((0..<graph.vertexCount).allSatisfy { tree.distance($0).isInfinite && tree.parent($0) == -1 && !tree.isSettled($0) })
        tree.grow(graph, weights, backwards: false, seeds: [(0, 0)])
        let again = ShortestPaths(graph: graph).weights(from: 0)
        #expect((0..<graph.vertexCount).allSatisfy { RouteFixtures.same(tree.distance($0), again[$0]) })
    }
}
