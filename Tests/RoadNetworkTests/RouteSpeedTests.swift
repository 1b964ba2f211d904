import Foundation
import Testing
@testable import RoadNetwork

/// What the landmarks buy: the same answers with a fraction of the vertices settled (counted, so the check does not
/// depend on a busy machine's clock; times are printed for the record).
@Suite("Route search effort with landmarks")
struct RouteSpeedTests {
    @Test("A* with landmarks settles far fewer vertices than Dijkstra for the same weights", arguments: [0, 1, 2])
    func effort(city: Int) throws {
        let helsinki = { (try? RoadGraphBuilder().build([OSMFixtures.helsinki]).graph).map { RoadRouter(graph: $0) } }
        let router = try #require(city == 2 ? helsinki() : [RouteFixtures.kremsRouter, RouteFixtures.monacoRouter][city])
        let plain = RoadRouter(graph: router.graph, landmarkCount: 0)
        let graph = router.graph
        var generator = SeededGenerator(seed: 18_000 + UInt64(city))
        var pairs: [(Int, Int)] = []
        while pairs.count < 100 {
            let a = Int.random(in: 0..<graph.vertexCount, using: &generator), b = Int.random(in: 0..<graph.vertexCount, using: &generator)
            if router.route(fromVertex: a, toVertex: b) != nil { pairs.append((a, b)) }
        }
        var withLandmarks = 0, without = 0
        for (a, b) in pairs {
            withLandmarks += router.searchEffort(fromVertex: a, toVertex: b)
            without += plain.searchEffort(fromVertex: a, toVertex: b)
            #expect(RouteFixtures.same(router.route(fromVertex: a, toVertex: b)!.weight, plain.route(fromVertex: a, toVertex: b)!.weight))
        }
        let clock = ContinuousClock()
        let alt = clock.measure { for (a, b) in pairs { _ = router.route(fromVertex: a, toVertex: b) } }
        let dijkstra = clock.measure { for (a, b) in pairs { _ = plain.route(fromVertex: a, toVertex: b) } }
        print("search effort \(["krems", "monaco", "helsinki"][city]) (\(graph.vertexCount) vertices): ALT settles \(withLandmarks / pairs.count), Dijkstra \(without / pairs.count) per route; debug build \(alt / pairs.count) vs \(dijkstra / pairs.count)")
        #expect(withLandmarks * 2 < without)
    }
}
