import Testing
@testable import RoadNetwork

@Suite("Route mismatch fraction")
struct RouteMismatchTests {
    /// Segment lengths of a made-up line 1 – 2 – 3 – 4 – 5 and a detour 2 – 9 – 4: 100 m each, the detour's 150 m.
    static func length(_ pair: CostOverlay.NodePair) -> Double {
        [pair.from, pair.to].contains(9) ? 150 : 100
    }

    @Test("the same route matches exactly; an empty match misses everything")
    func exactAndEmpty() {
        #expect(RouteMismatch.fraction(truth: [[1, 2, 3, 4]], matched: [[1, 2, 3, 4]], length: Self.length) == 0)
        #expect(RouteMismatch.fraction(truth: [[1, 2, 3, 4]], matched: [], length: Self.length) == 1)
        #expect(RouteMismatch.fraction(truth: [], matched: [], length: Self.length) == 0)
        #expect(RouteMismatch.fraction(truth: [], matched: [[1, 2]], length: Self.length) == .infinity)
    }

    @Test("a detour adds its length and misses the pairs it skips")
    func detour() {
        // Truth 1-2-3-4-5 (400 m); matched 1-2-9-4-5: adds 2→9, 9→4 (300 m), misses 2→3, 3→4 (200 m).
        let rmf = RouteMismatch.fraction(truth: [[1, 2, 3, 4, 5]], matched: [[1, 2, 9, 4, 5]], length: Self.length)
        #expect(abs(rmf - 500.0 / 400) < 1e-12)
    }

    @Test("direction counts: the route ridden backwards is all wrong")
    func direction() {
        #expect(RouteMismatch.fraction(truth: [[1, 2, 3]], matched: [[3, 2, 1]], length: Self.length) == 2)
    }

    @Test("a gap between pieces misses what it skips; a pair ridden twice counts once")
    func piecesAndRepeats() {
        #expect(RouteMismatch.fraction(truth: [[1, 2, 3, 4, 5]], matched: [[1, 2, 3], [4, 5]], length: Self.length) == 0.25)
        #expect(RouteMismatch.fraction(truth: [[1, 2, 3, 2, 3]], matched: [[1, 2, 3]], length: Self.length) == 1.0 / 3)
    }

    @Test("the router measures a pair by its graph segment, either direction; an unknown pair is nil")
    func routerLengths() throws {
        let router = try #require(RouteFixtures.kremsRouter)
        let graph = router.graph
        let edge = try #require((0..<graph.edgeCount).first { graph.shapeNodes(of: $0).count > 2 })
        let nodes = Array(graph.shapeNodes(of: edge))
        let start = Int(graph.edgeShapeStarts[edge])
        let expected = graph.segmentLength(start)
        #expect(router.segmentLength(.init(from: nodes[0], to: nodes[1])) == expected)
        #expect(router.segmentLength(.init(from: nodes[1], to: nodes[0])) == expected)
        #expect(router.segmentLength(.init(from: nodes[0], to: nodes[2])) == nil)
    }
}
