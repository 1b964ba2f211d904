import Foundation
import Testing
@testable import RoadNetwork

@Suite("Snapping to the road graph")
struct SnapIndexTests {
    static func helsinki() throws -> RoadGraph { try RoadGraphBuilder().build([OSMFixtures.helsinki]).graph }

    @Test("the nearest edge is the one brute force finds, at 100 random points in and around Helsinki")
    func nearestMatchesBruteForce() throws {
        let graph = try Self.helsinki()
        let index = SnapIndex(graph: graph)
        let coarse = SnapIndex(graph: graph, cellDegrees: 1)  // Helsinki fits in one 1° cell: every segment is compared
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let latitude = Double.random(in: 60.160...60.183, using: &generator)
            let longitude = Double.random(in: 24.930...24.958, using: &generator)
            let snap = try #require(index.nearest(latitude: latitude, longitude: longitude, radius: 5_000))
            let reference = try #require(coarse.nearest(latitude: latitude, longitude: longitude, radius: 5_000))
            #expect(abs(snap.distance - reference.distance) < 1e-6, "at \(latitude), \(longitude)")
            #expect(snap.offset >= 0 && snap.offset <= graph.edgeLengths[snap.edge] + 1e-6)
        }
    }

    @Test("a point far from every street is no snap; k candidates come nearest first, one per edge")
    func radiusAndCandidates() throws {
        let graph = try Self.helsinki()
        let index = SnapIndex(graph: graph)
        #expect(index.nearest(latitude: 60.10, longitude: 24.94, radius: 200) == nil)  // in the sea, 6 km south
        #expect(index.nearest(latitude: .nan, longitude: 24.94, radius: 200) == nil)
        let candidates = index.candidates(latitude: 60.1699, longitude: 24.9384, radius: 150, limit: 5)
        #expect(candidates.count == 5)
        #expect(candidates.map(\.distance) == candidates.map(\.distance).sorted())
        #expect(Set(candidates.map(\.edge)).count == candidates.count)
        #expect(candidates.allSatisfy { $0.distance <= 150 })
    }

    @Test("a point on a vertex snaps to it with distance zero")
    func onVertex() throws {
        let graph = try Self.helsinki()
        let index = SnapIndex(graph: graph)
        let vertex = graph.vertexCount / 2
        let snap = try #require(index.nearest(latitude: graph.vertexLatitudes[vertex], longitude: graph.vertexLongitudes[vertex], radius: 10))
        #expect(snap.distance < 1e-6)
    }
}
