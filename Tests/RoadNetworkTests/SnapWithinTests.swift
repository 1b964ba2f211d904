import Testing
@testable import RoadNetwork

@Suite("Snapping: every edge within a radius")
struct SnapWithinTests {
    @Test("every edge within the radius is brute force's, one snap per edge, nearest first", arguments: 0..<2)
    func withinMatchesBruteForce(city: Int) throws {
        let graph = try SnapIndexTests.city(city)
        let index = SnapIndex(graph: graph)
        var generator = SeededGenerator(seed: 4_019 + UInt64(city))
        for _ in 0..<40 {
            let (latitude, longitude) = SnapIndexTests.pointNear(graph, within: 80, using: &generator)
            for radius in [0.0, 15, 50, 120] {
                let found = index.edges(within: radius, latitude: latitude, longitude: longitude)
                let expected = SnapBruteForce.candidates(graph, latitude: latitude, longitude: longitude, radius: radius, limit: .max)
                #expect(found.count == expected.count, "\(radius) m at \(latitude), \(longitude)")
                for (snap, reference) in zip(found, expected) { SnapIndexTests.expectSame(snap, reference, among: expected) }
            }
        }
    }

    @Test("nothing for a coordinate off the globe or NaN, a negative or infinite radius")
    func withinRejectsBadInput() throws {
        let index = SnapIndex(graph: try SnapIndexTests.city(0))
        #expect(index.edges(within: 50, latitude: .nan, longitude: 15.6).isEmpty)
        #expect(index.edges(within: 50, latitude: 91, longitude: 15.6).isEmpty)
        #expect(index.edges(within: -1, latitude: 48.41, longitude: 15.6).isEmpty)
        #expect(index.edges(within: .infinity, latitude: 48.41, longitude: 15.6).isEmpty)
    }
}
