import Foundation
import Testing
@testable import RoadNetwork

/// The contraction hierarchy big graphs route with (CH-Potentials: exact base distances as the A* potential). Oracles
/// independent of it: Dijkstra (``ShortestPaths``) on the graph, on its reverse and on the overlaid graph, and the
/// alternative rules checked by Dijkstra (``RouteLandmarkTests/expectRules(_:_:vertexOf:dijkstra:)``). Hierarchies are
/// forced on small graphs here (Krems, Monaco and the 30 × 30 grid of ``RouteLandmarkTests``); `waypoint-bench roads`
/// measures the 1M grid.
@Suite("Contraction hierarchy potentials")
struct RoadHierarchyTests {
    /// Krems, Monaco, the 30 × 30 grid.
    static func graph(_ index: Int) throws -> RoadGraph { try RouteLandmarkTests.graph(index) }

    @Test("every potential is the Dijkstra weight (to and from a vertex, and to the nearest of weighted seeds) within Float rounding, infinite exactly where there is no route",
          arguments: [0, 1, 2])
    func exact(graphIndex: Int) throws {
        let graph = try Self.graph(graphIndex)
        let hierarchy = RoadHierarchy(graph: graph)
        #expect(hierarchy.problem(vertexCount: graph.vertexCount) == nil)
        let dijkstra = ShortestPaths(graph: graph), backwards = ShortestPaths(graph: RouteLandmarkTests.reversed(graph))
        let work = HierarchyPotential(vertexCount: graph.vertexCount)
        var generator = SeededGenerator(seed: 5_100 + UInt64(graphIndex))
        func expectClose(_ value: Double, _ exact: Double, _ what: @autoclosure () -> String) {
            if exact.isInfinite { #expect(value.isInfinite, "\(what())"); return }
            #expect(value <= exact * (1 + 1e-9) && value >= exact * (1 - 1e-6), "\(what()): \(value) vs \(exact)")
        }
        for _ in 0..<8 {
            let vertex = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let from = dijkstra.weights(from: vertex), to = backwards.weights(from: vertex)
            work.prepare(hierarchy, seeds: [(vertex, 0)], towards: true)
            for v in 0..<graph.vertexCount { expectClose(work.value(hierarchy, v), to[v], "\(v) → \(vertex)") }
            work.prepare(hierarchy, seeds: [(vertex, 0)], towards: false)
            for v in 0..<graph.vertexCount { expectClose(work.value(hierarchy, v), from[v], "\(vertex) → \(v)") }
        }
        // Two seeds with their own starting weights: the potential is the smaller of weight + distance.
        let a = Int.random(in: 0..<graph.vertexCount, using: &generator), b = Int.random(in: 0..<graph.vertexCount, using: &generator)
        let toA = backwards.weights(from: a), toB = backwards.weights(from: b)
        work.prepare(hierarchy, seeds: [(a, 120), (b, 35.5)], towards: true)
        for v in 0..<graph.vertexCount { expectClose(work.value(hierarchy, v), min(toA[v] + 120, toB[v] + 35.5), "\(v) → {\(a), \(b)}") }
    }

    @Test("every arc of the hierarchy leads to a later vertex and weighs no less than the cheapest path it stands for; the grid needs shortcuts",
          arguments: [0, 2])
    func arcs(graphIndex: Int) throws {
        let graph = try Self.graph(graphIndex)
        let hierarchy = RoadHierarchy(graph: graph)
        let dijkstra = ShortestPaths(graph: graph)
        var distances: [Int: [Double]] = [:]
        var checked = 0
        for v in 0..<graph.vertexCount where v % 7 == 0 {
            let from = distances[v] ?? dijkstra.weights(from: v)
            distances = [v: from]
            for slot in Int(hierarchy.upward.starts[v])..<Int(hierarchy.upward.starts[v + 1]) {
                let head = Int(hierarchy.upward.heads[slot])
                #expect(hierarchy.ranks[head] > hierarchy.ranks[v])
                #expect(Double(hierarchy.upward.weights[slot]) >= from[head] * (1 - 1e-6), "\(v) → \(head)")
                checked += 1
            }
        }
        #expect(checked > 100)
        let plainArcs = (0..<graph.edgeCount).reduce(0) { count, edge in
            count + (graph.edgeForwardWeights[edge].isFinite ? 1 : 0) + (graph.edgeBackwardWeights[edge].isFinite ? 1 : 0)
        }
        if graphIndex == 2 { #expect(hierarchy.arcCount > plainArcs, "shortcuts were added") }
    }

    @Test("a router with a hierarchy finds Dijkstra's weight on 150 pairs without an overlay, with factors and penalties, and with discounts down to 0.5",
          arguments: [0, 1, 2])
    func bestRoutes(graphIndex: Int) throws {
        let graph = try Self.graph(graphIndex)
        let router = RoadRouter(graph: graph, landmarkCount: 0, hierarchy: true)
        try #require(router.hierarchy != nil && router.landmarks.count == 0)
        var generator = SeededGenerator(seed: 5_200 + UInt64(graphIndex))
        let raising = try RouteFixtures.randomOverlay(graph, count: 300, using: &generator)
        let discounting = try RouteFixtures.randomOverlay(graph, count: graph.edgeCount * 2, factors: 0.5...1.2, penalties: false, using: &generator)
        let cases = [(CostOverlay.empty, ShortestPaths(graph: graph)),
                     (raising, ShortestPaths(graph: RouteFixtures.overlaid(graph, raising))),
                     (discounting, ShortestPaths(graph: RouteFixtures.overlaid(graph, discounting)))]
        for (overlay, oracle) in cases {
            let weights = router.weights(for: overlay)
            var connected = 0
            for _ in 0..<150 {
                let source = Int.random(in: 0..<graph.vertexCount, using: &generator)
                let target = Int.random(in: 0..<graph.vertexCount, using: &generator)
                let expected = oracle.path(from: source, to: target)?.weight ?? .infinity
                let found = router.route(fromVertex: source, toVertex: target, weights: weights)?.weight ?? .infinity
                #expect(RouteFixtures.same(found, expected), "\(source) → \(target): \(found) vs \(expected)")
                if expected.isFinite { connected += 1 }
            }
            #expect(connected > 75)
        }
    }

    @Test("with a hierarchy every alternative obeys the rules (Dijkstra's check) and the best route is Dijkstra's, with and without discounts",
          arguments: [0, 2])
    func alternatives(graphIndex: Int) throws {
        let graph = try Self.graph(graphIndex)
        let router = RoadRouter(graph: graph, landmarkCount: 0, hierarchy: true)
        var generator = SeededGenerator(seed: 5_300 + UInt64(graphIndex))
        let discounting = try RouteFixtures.randomOverlay(graph, count: graph.edgeCount, factors: 0.5...1.2, penalties: false, using: &generator)
        var alternatives = 0
        for overlay in [CostOverlay.empty, discounting] {
            alternatives += try RouteLandmarkTests.expectAlternatives(router, graph, weights: router.weights(for: overlay),
                                                                      dijkstra: ShortestPaths(graph: RouteFixtures.overlaid(graph, overlay)),
                                                                      pairs: 20, using: &generator)
        }
        #expect(alternatives > 0)
    }

    @Test("with the hierarchy a search settles little more than the route's own vertices; with 16 landmarks more")
    func effort() throws {
        let graph = try Self.graph(2)
        let withHierarchy = RoadRouter(graph: graph, landmarkCount: 0, hierarchy: true), withLandmarks = RoadRouter(graph: graph, hierarchy: false)
        var generator = SeededGenerator(seed: 5_400)
        var hierarchyEffort = 0, landmarkEffort = 0, routeVertices = 0
        for _ in 0..<100 {
            let source = Int.random(in: 0..<graph.vertexCount, using: &generator), target = Int.random(in: 0..<graph.vertexCount, using: &generator)
            guard let route = withHierarchy.route(fromVertex: source, toVertex: target) else { continue }
            routeVertices += route.segments.count + 1
            hierarchyEffort += withHierarchy.searchEffort(fromVertex: source, toVertex: target)
            landmarkEffort += withLandmarks.searchEffort(fromVertex: source, toVertex: target)
        }
        #expect(routeVertices > 1_000)
        // Exact potentials: only vertices on a best route (and ties) have keys up to the best weight.
        #expect(hierarchyEffort <= routeVertices * 3 / 2, "\(hierarchyEffort) settled for \(routeVertices) route vertices")
        #expect(hierarchyEffort < landmarkEffort, "\(hierarchyEffort) vs \(landmarkEffort)")
    }

    @Test("the compiled cache keeps the hierarchy; forged ranks or arcs with a valid checksum are refused")
    func cache() throws {
        let graph = try Self.graph(2)
        let report = RoadGraphBuilder.Report(usableWays: 1, missingNodeReferences: 0, cycleNetworkWays: 0)
        let hierarchy = RoadHierarchy(graph: graph), landmarks = RoadLandmarks(graph: graph, count: 2)
        let key = [UInt8](repeating: 3, count: 32)
        func decoded(_ hierarchy: RoadHierarchy?) -> Result<(graph: RoadGraph, report: RoadGraphBuilder.Report, landmarks: RoadLandmarks, hierarchy: RoadHierarchy?), RoadGraphCacheMiss> {
            RoadGraphCacheFile.decode(RoadGraphCacheFile.encode(graph, report: report, key: key, landmarks: landmarks, hierarchy: hierarchy),
                                      key: key, profile: BikeProfile())
        }
        guard case .success(let back) = decoded(hierarchy), let read = back.hierarchy else { Issue.record("not read back"); return }
        #expect(read.ranks == hierarchy.ranks && read.upward.heads == hierarchy.upward.heads && read.downward.weights == hierarchy.downward.weights)
        #expect(read.graphFingerprint == graph.fingerprint)
        guard case .success(let none) = decoded(nil) else { Issue.record("no hierarchy: not read back"); return }
        #expect(none.hierarchy == nil)
        var swapped = hierarchy.ranks
        let low = swapped.firstIndex(of: 0)!, high = swapped.firstIndex(of: Int32(graph.vertexCount - 1))!
        swapped.swapAt(low, high)
        let forged = RoadHierarchy(ranks: swapped, upward: hierarchy.upward, downward: hierarchy.downward, graph: graph)
        #expect(decoded(forged).failureReason == .corrupt("a hierarchy upward arc does not lead higher"))
        var repeated = hierarchy.ranks
        repeated[low] = repeated[high]
        #expect(decoded(RoadHierarchy(ranks: repeated, upward: hierarchy.upward, downward: hierarchy.downward, graph: graph)).failureReason
            == .corrupt("hierarchy ranks are not a permutation"))
        var negative = hierarchy.downward
        negative.weights[0] = -1
        #expect(decoded(RoadHierarchy(ranks: hierarchy.ranks, upward: hierarchy.upward, downward: negative, graph: graph)).failureReason
            == .corrupt("a hierarchy weight is not a number ≥ 0"))
        var short = hierarchy.upward
        short.heads.removeLast()
        #expect(decoded(RoadHierarchy(ranks: hierarchy.ranks, upward: short, downward: hierarchy.downward, graph: graph)).failureReason
            == .corrupt("hierarchy upward arcs differ in length"))
    }

    @Test("the loader builds the hierarchy at import, caches it and loads it back; a cache of a big graph without one is rebuilt; a router from the loaded network routes like Dijkstra")
    func loader() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("road-hierarchy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Krems counts as big here (a hierarchy from 1 vertex on).
        let imported = try RoadNetworkLoader.load(extracts: [OSMFixtures.krems], cacheDirectory: directory, profile: BikeProfile(), hierarchyFrom: 1)
        let built = try #require(imported.hierarchy)
        #expect(imported.source == .imported(cacheMiss: .missing))
        let cached = try RoadNetworkLoader.load(extracts: [OSMFixtures.krems], cacheDirectory: directory, profile: BikeProfile(), hierarchyFrom: 1)
        #expect(cached.source == .cache)
        let read = try #require(cached.hierarchy)
        #expect(read.ranks == built.ranks && read.upward.weights == built.upward.weights && read.downward.heads == built.downward.heads)
        let router = RoadRouter(network: cached)
        #expect(router.hierarchy != nil)
        let dijkstra = ShortestPaths(graph: cached.graph)
        var generator = SeededGenerator(seed: 5_500)
        for _ in 0..<50 {
            let a = Int.random(in: 0..<cached.graph.vertexCount, using: &generator), b = Int.random(in: 0..<cached.graph.vertexCount, using: &generator)
            #expect(RouteFixtures.same(router.route(fromVertex: a, toVertex: b)?.weight ?? .infinity, dijkstra.path(from: a, to: b)?.weight ?? .infinity))
        }
        // The default threshold: Krems is small, the cache without a hierarchy is sound for it…
        let small = try RoadNetworkLoader.load(extracts: [OSMFixtures.krems], cacheDirectory: directory + "-small", profile: BikeProfile(),
                                               hierarchyFrom: RoadHierarchy.minimumVertexCount)
        defer { try? FileManager.default.removeItem(atPath: directory + "-small") }
        #expect(small.hierarchy == nil && small.landmarks.count == 16)
        // …but a loader that wants one for it does not trust that file and rebuilds it.
        let wanting = try RoadNetworkLoader.load(extracts: [OSMFixtures.krems], cacheDirectory: directory + "-small", profile: BikeProfile(), hierarchyFrom: 1)
        #expect(wanting.source == .imported(cacheMiss: .corrupt("a big graph without its hierarchy")))
        #expect(wanting.hierarchy != nil)
    }
}
