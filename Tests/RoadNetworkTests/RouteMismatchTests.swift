import Foundation
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

    /// A point `north` and `east` metres from (48.4, 15.6).
    static func point(north: Double, east: Double) -> RoadPoint {
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        return RoadPoint(latitude: 48.4 + north / metresPerDegree, longitude: 15.6 + east / (metresPerDegree * cos(48.4 * .pi / 180)))
    }

    @Test("beyond a tolerance: a parallel way 5 m off counts nothing at 10 m and all of both lines at 3 m; a detour counts what leaves the buffer")
    func geometric() {
        let truth = [Self.point(north: 0, east: 0), Self.point(north: 0, east: 400)]
        let parallel = [Self.point(north: 5, east: 0), Self.point(north: 5, east: 400)]
        #expect(RouteMismatch.beyond(tolerance: 10, truth: truth, matched: [truth]) == 0)
        #expect(RouteMismatch.beyond(tolerance: 10, truth: truth, matched: [parallel]) == 0)
        #expect(abs(RouteMismatch.beyond(tolerance: 3, truth: truth, matched: [parallel]) - 2) < 1e-3)
        // A detour 100 m north between 100 and 300 m: the truth's 200 m between them missed (less the ends within 10 m
        // of the detour's legs), the detour's 400 m added (less the legs' first 10 m).
        let detour = [Self.point(north: 0, east: 0), Self.point(north: 0, east: 100), Self.point(north: 100, east: 100),
                      Self.point(north: 100, east: 300), Self.point(north: 0, east: 300), Self.point(north: 0, east: 400)]
        let value = RouteMismatch.beyond(tolerance: 10, truth: truth, matched: [detour])
        #expect(abs(value - (180.0 + 380.0) / 400) < 0.01, "\(value)")
        // Nothing matched: the whole truth is missed; nothing at all: 0; only a match: infinite.
        #expect(abs(RouteMismatch.beyond(tolerance: 10, truth: truth, matched: []) - 1) < 1e-9)
        #expect(RouteMismatch.beyond(tolerance: 10, truth: [], matched: []) == 0)
        #expect(RouteMismatch.beyond(tolerance: 10, truth: [], matched: [parallel]) == .infinity)
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
