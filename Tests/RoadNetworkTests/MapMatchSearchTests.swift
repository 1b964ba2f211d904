import Foundation
import Testing
@testable import RoadNetwork

/// The matcher's transition searches run A* towards the targets' circle (``MatchPlane``); that bound must be consistent,
/// so every target is found with exactly the cost plain Dijkstra gives it, and the same targets are found. Checked on
/// Helsinki (dense, several directions of one-way streets) against an unguided search of the same tree.
@Suite("Map matching: the transition searches' A* bound")
struct MapMatchSearchTests {
    @Test("A* towards the targets' circle finds every target Dijkstra finds within the bound, at the same cost")
    func guidedEqualsDijkstra() throws {
        let router = try #require(MapMatchCyclewayTests.router)
        let graph = router.graph
        let matcher = MapMatcher(router: router)
        // Pairs of (A*, Dijkstra) costs per target; nil: not found within the bound.
        let pairs: [(guided: Double?, plain: Double?)] = router.trees.withTree { tree in
            var random = SplitMixRandom(seed: 2_026)
            var result: [(guided: Double?, plain: Double?)] = []
            let transitions = MatchTransitions(graph: graph, costs: matcher.costs, rules: matcher.rules, tree: tree, plane: matcher.plane)
            for _ in 0..<300 {
                let start = Int(random.next() % UInt64(graph.vertexCount))
                // Targets: up to 8 vertices within 150 m of a point ~55 m north of the start (the next fix's candidates).
                let near = router.snapIndex.edges(within: 150, latitude: graph.vertexLatitudes[start] + 0.0005,
                                                  longitude: graph.vertexLongitudes[start])
                let targets = Array(Set(near.prefix(8).map { Int(graph.edgeSources[$0.edge]) }))
                guard !targets.isEmpty else { continue }
                let bound = 400.0
                let guided = transitions.routes(from: start, to: targets, bound: bound).map { $0?.cost }
                tree.reset()
                tree.grow(graph, matcher.costs, backwards: false, seeds: [(start, 0)], stop: { $0 > bound * MatchTransitions.boundSlack })
                for (index, target) in targets.enumerated() {
                    result.append((guided[index], tree.isSettled(target) ? tree.distance(target) : nil))
                }
            }
            return result
        }
        var compared = 0, found = 0
        for pair in pairs {
            compared += 1
            if let plain = pair.plain {
                found += 1
                #expect(pair.guided.map { abs($0 - plain) <= 1e-9 * max(1, plain) } == true, "A* \(String(describing: pair.guided)) vs Dijkstra \(plain)")
            } else {
                #expect(pair.guided == nil, "A* found \(String(describing: pair.guided)), Dijkstra none")
            }
        }
        #expect(compared > 500 && found > 200, "compared \(compared) targets, \(found) reachable")
    }
}
