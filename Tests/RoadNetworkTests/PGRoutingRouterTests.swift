import Foundation
import ServiceTesting
import Testing
@testable import RoadNetwork

/// The router services use (``RoadRouter``: ALT A*, snapping, alternatives) against pgRouting on the oracle's kind of
/// pairs: its best weight is `pgr_dijkstraCost`'s, and every alternative it offers obeys the published rules, measured
/// against pgRouting's best (stretch), the better routes (sharing) and plain Dijkstra (local optimality).
@Suite("pgRouting agrees with the router, and its alternatives obey the rules", .serialized,
       .enabled(if: TestBackend.enabled.contains(.postgres)))
struct PGRoutingRouterTests {
    /// Alternatives whose local optimality is checked per city (each check runs a Dijkstra per window start).
    static let localOptimalityChecks = 40

    @Test("Krems: 500 pairs — the router's best weight is pgRouting's, alternatives obey stretch, sharing and local optimality")
    func krems() async throws {
        try await Self.check(OSMFixtures.krems, seed: 18_001)
    }

    @Test("Helsinki: 500 pairs — the router's best weight is pgRouting's, alternatives obey stretch, sharing and local optimality")
    func helsinki() async throws {
        try await Self.check(OSMFixtures.helsinki, seed: 18_002)
    }

    static func check(_ extract: String, seed: UInt64) async throws {
        let graph = try RoadGraphBuilder().build([extract]).graph
        let router = RoadRouter(graph: graph)
        let rules = router.alternativeRules
        var generator = SeededGenerator(seed: seed)
        let pairs = PGRoutingOracleTests.randomPairs(graph, using: &generator)
        let best = try await PGRoutingOracleTests.pgRoutingCosts(graph: graph, pairs: pairs)
        let dijkstra = ShortestPaths(graph: graph)
        let vertexOf = Dictionary(uniqueKeysWithValues: graph.vertexNodeIDs.enumerated().map { ($1, $0) })
        var routed = 0, withAlternative = 0, alternatives = 0, checkedLocally = 0
        for (origin, destination) in pairs {
            // Each pair is a few milliseconds of CPU in a debug build: let the cooperative pool's other tasks (two
            // threads on these machines; timing-sensitive suites run beside this one) in between.
            await Task.yield()
            let key = PGRoutingOracleTests.PairKey(source: graph.vertexNodeIDs[origin], target: graph.vertexNodeIDs[destination])
            let route = router.route(fromVertex: origin, toVertex: destination)
            guard let cost = best[key] else {
                #expect(route == nil, "\(key): pgr_dijkstra finds no route, the router does")
                continue
            }
            routed += 1
            let weight = try #require(route?.weight, "\(key): pgr_dijkstra routes (cost \(cost)), the router does not")
            #expect(abs(weight - cost) <= 1e-6 * max(cost, 1e-9), "\(key): router \(weight), pgr_dijkstra \(cost)")
            let request = RouteRequest(origin: RoadPoint(latitude: graph.vertexLatitudes[origin], longitude: graph.vertexLongitudes[origin]),
                                       destination: RoadPoint(latitude: graph.vertexLatitudes[destination],
                                                              longitude: graph.vertexLongitudes[destination]),
                                       alternatives: 2)
            guard let routes = try? router.route(request).routes, !routes.isEmpty else { continue }
            #expect(routes[0].weight <= cost * (1 + 1e-6), "\(key): the best between the snapped points is at most pgRouting's")
            if routes.count > 1 { withAlternative += 1 }
            for (index, alternative) in routes.enumerated().dropFirst() {
                alternatives += 1
                // Snapping a vertex's own coordinates may start on a neighbouring edge at offset 0: the best between
                // the snapped points is then at most pgRouting's vertex-to-vertex cost.
                #expect(alternative.weight <= rules.maximumStretch * max(cost, routes[0].weight) * (1 + 1e-9), "\(key): stretch")
                for better in routes[..<index] {
                    #expect(RouteAlternativeTests.shared(alternative, better) <= rules.maximumSharing * better.weight * (1 + 1e-9),
                            "\(key): sharing with a better route")
                }
                if checkedLocally < localOptimalityChecks {
                    checkedLocally += 1
                    #expect(RouteAlternativeTests.locallyOptimal(alternative, vertexOf: vertexOf, dijkstra: dijkstra,
                                                                 window: rules.minimumPlateau * routes[0].weight), "\(key): local optimality")
                }
            }
        }
        print("pgRouting router check, \((extract as NSString).lastPathComponent): \(pairs.count) pairs, \(routed) routed, "
            + "\(withAlternative) with an alternative, \(alternatives) alternatives checked (\(checkedLocally) for local optimality)")
        #expect(routed > pairs.count / 2)
        #expect(withAlternative > 0)
    }
}
