import Foundation
import Testing
@testable import RoadNetwork

/// Alternatives: the stated rules (``AlternativeRules``) checked on every route returned, the local optimality by
/// Dijkstra on every short stretch, and how often real pairs get one.
@Suite("Alternative routes")
struct RouteAlternativeTests {
    /// Two streets between vertices 1 and 2, north through 3 and south through 4 (each with a spur, so 3 and 4 are
    /// vertices): two routes that share nothing.
    static let ladder = """
        <osm version="0.6">
          <node id="1" lat="48.0" lon="16.000"/>
          <node id="2" lat="48.0" lon="16.010"/>
          <node id="3" lat="48.001" lon="16.005"/>
          <node id="4" lat="47.9988" lon="16.005"/>
          <node id="5" lat="48.002" lon="16.005"/>
          <node id="6" lat="47.9978" lon="16.005"/>
          <way id="20"><nd ref="1"/><nd ref="3"/><nd ref="2"/><tag k="highway" v="residential"/></way>
          <way id="21"><nd ref="1"/><nd ref="4"/><nd ref="2"/><tag k="highway" v="residential"/></way>
          <way id="22"><nd ref="3"/><nd ref="5"/><tag k="highway" v="service"/></way>
          <way id="23"><nd ref="4"/><nd ref="6"/><tag k="highway" v="service"/></way>
        </osm>
        """

    @Test("two disjoint streets: the shorter is the best route, the other its alternative")
    func ladderAlternative() throws {
        let router = RoadRouter(graph: try RouteFixtures.graph(Self.ladder))
        let request = RouteRequest(origin: RoadPoint(latitude: 48.0, longitude: 15.9995), destination: RoadPoint(latitude: 48.0, longitude: 16.0105),
                                   alternatives: 2)
        let routes = try router.route(request).routes
        #expect(routes.count == 2)
        #expect(routes.first?.segments.contains { $0.wayID == 20 } == true)
        #expect(routes.last?.segments.contains { $0.wayID == 21 } == true)
        #expect(routes.map(\.weight) == routes.map(\.weight).sorted())
    }

    @Test("on Krems and Monaco every alternative obeys the rules; the best equals Dijkstra's; answers are deterministic",
          arguments: [0, 1])
    func rulesOnRealData(city: Int) throws {
        let router = try #require([RouteFixtures.kremsRouter, RouteFixtures.monacoRouter][city])
        let graph = router.graph, rules = router.alternativeRules
        let dijkstra = ShortestPaths(graph: graph)
        let vertexOf = Dictionary(uniqueKeysWithValues: graph.vertexNodeIDs.enumerated().map { ($1, $0) })
        var generator = SeededGenerator(seed: 1_800 + UInt64(city))
        var pairs = 0, withAlternative = 0, elapsed = Duration.zero
        while pairs < 40 {
            let a = Int.random(in: 0..<graph.vertexCount, using: &generator), b = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let distance = RoadGraphBuilder.distance((graph.vertexLatitudes[a], graph.vertexLongitudes[a]), (graph.vertexLatitudes[b], graph.vertexLongitudes[b]))
            guard (1_000...5_000).contains(distance), let best = dijkstra.path(from: a, to: b) else { continue }
            pairs += 1
            let request = RouteRequest(origin: RoadPoint(latitude: graph.vertexLatitudes[a], longitude: graph.vertexLongitudes[a]),
                                       destination: RoadPoint(latitude: graph.vertexLatitudes[b], longitude: graph.vertexLongitudes[b]), alternatives: 2)
            var result = RouteResult.noRoute(leg: 0)
            elapsed += try ContinuousClock().measure { result = try router.route(request) }
            #expect(try router.route(request) == result)  // deterministic
            let routes = result.routes
            try #require(!routes.isEmpty)
            #expect(RouteFixtures.same(routes[0].weight, best.weight) || routes[0].weight < best.weight)  // snapping at a vertex may pick a zero piece
            if routes.count > 1 { withAlternative += 1 }
            for (index, route) in routes.enumerated().dropFirst() {
                #expect(route.weight <= rules.maximumStretch * routes[0].weight * (1 + 1e-9))
                for better in routes[..<index] {
                    #expect(Self.shared(route, better) <= rules.maximumSharing * better.weight * (1 + 1e-9))
                }
                let vertices = route.segments.flatMap { [$0.nodeIDs.first!, $0.nodeIDs.last!] }.compactMap { vertexOf[$0] }
                #expect(Self.locallyOptimal(route, vertexOf: vertexOf, dijkstra: dijkstra, window: rules.minimumPlateau * routes[0].weight))
                #expect(Set(vertices).count == Set(route.nodeIDs.compactMap { vertexOf[$0] }).count)
            }
        }
        print("alternatives_rate \(city == 0 ? "krems" : "monaco") = \(Double(withAlternative) / Double(pairs)) (\(withAlternative)/\(pairs) pairs 1–5 km); best + 2 alternatives \(elapsed / pairs) a request (debug build)")
        #expect(withAlternative > 0)
    }

    /// Independent of the router: the weight of `route`'s segments on edges `other` also rides in the same direction.
    static func shared(_ route: RoadRoute, _ other: RoadRoute) -> Double {
        var others: [String: Double] = [:]
        for segment in other.segments { others["\(segment.edge)\(segment.reversed)", default: 0] += segment.weight }
        return route.segments.reduce(0) { $0 + min($1.weight, others["\($1.edge)\($1.reversed)"] ?? 0) }
    }

    /// Every stretch of whole edges weighing at most `window` is a shortest path between its ends (Dijkstra).
    static func locallyOptimal(_ route: RoadRoute, vertexOf: [Int64: Int], dijkstra: ShortestPaths, window: Double) -> Bool {
        let whole = route.segments.filter { vertexOf[$0.nodeIDs.first!] != nil && vertexOf[$0.nodeIDs.last!] != nil }
        guard whole.count == route.segments.count || whole.count + 2 >= route.segments.count else { return false }
        let inner = route.segments.dropFirst().dropLast()
        let stops = inner.map { vertexOf[$0.nodeIDs.first!]! } + [inner.last.map { vertexOf[$0.nodeIDs.last!]! }].compactMap { $0 }
        let weights = Array(inner.map(\.weight))
        for start in 0..<stops.count {
            var weight = 0.0, end = start
            while end < weights.count, weight + weights[end] <= window { weight += weights[end]; end += 1 }
            guard end > start, let shortest = dijkstra.path(from: stops[start], to: stops[end]) else { continue }
            if !RouteFixtures.same(shortest.weight, weight) { return false }
        }
        return true
    }
}
