import Foundation
import Testing
@testable import RoadNetwork

/// Landmarks in the compiled cache: computed once at import, stored with the graph under its checksum, loaded with it.
@Suite("Landmarks in the compiled cache")
struct RoadLandmarkCacheTests {
    /// The same landmarks: vertices, units and every step.
    static func same(_ a: RoadLandmarks, _ b: RoadLandmarks) -> Bool {
        a.vertices == b.vertices && a.units == b.units && a.steps == b.steps
    }

    @Test("Krems' landmarks round-trip through the cache, and a router from the loaded network routes like one that computes them")
    func roundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("road-landmarks-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let imported = try RoadNetworkLoader.load(extracts: [OSMFixtures.krems], cacheDirectory: directory)
        let cached = try RoadNetworkLoader.load(extracts: [OSMFixtures.krems], cacheDirectory: directory)
        #expect(cached.source == .cache)
        #expect(imported.landmarks.count == RoadLandmarks.defaultCount(vertexCount: imported.graph.vertexCount))
        #expect(Self.same(cached.landmarks, imported.landmarks))
        #expect(Self.same(cached.landmarks, RoadLandmarks(graph: imported.graph)))  // what a router without a cache computes
        let loaded = RoadRouter(network: cached), computed = RoadRouter(graph: imported.graph)
        #expect(Self.same(loaded.landmarks, cached.landmarks))
        var generator = SeededGenerator(seed: 77)
        for _ in 0..<50 {
            let a = Int.random(in: 0..<cached.graph.vertexCount, using: &generator), b = Int.random(in: 0..<cached.graph.vertexCount, using: &generator)
            #expect(loaded.route(fromVertex: a, toVertex: b) == computed.route(fromVertex: a, toVertex: b))
            #expect(loaded.searchEffort(fromVertex: a, toVertex: b) == computed.searchEffort(fromVertex: a, toVertex: b))
        }
    }

    @Test("a landmark block with a valid checksum but wrong sizes, vertices, units or self-distances is refused")
    func forged() throws {
        let (graph, report) = try RoadGraphTests.build(RoadGraphTests.square)
        let good = RoadLandmarks(graph: graph, count: 2)
        let key = [UInt8](repeating: 9, count: 32)
        func decoded(_ landmarks: RoadLandmarks) -> RoadGraphCacheMiss? {
            RoadGraphCacheFile.decode(RoadGraphCacheFile.encode(graph, report: report, key: key, landmarks: landmarks),
                                      key: key, profile: BikeProfile()).failureReason
        }
        #expect(decoded(good) == nil)
        let width = 2 * good.count
        func forged(vertices: [Int32]? = nil, units: [Double]? = nil, steps: [UInt16]? = nil) -> RoadLandmarks {
            RoadLandmarks(vertices: vertices ?? good.vertices, units: units ?? good.units, steps: steps ?? good.steps, graph: graph)
        }
        #expect(decoded(forged(steps: Array(good.steps.dropLast()))) == .corrupt("landmark arrays differ in length"))
        #expect(decoded(forged(units: good.units + [1])) == .corrupt("landmark arrays differ in length"))
        #expect(decoded(forged(vertices: [good.vertices[0], Int32(graph.vertexCount)])) == .corrupt("a landmark names a missing vertex"))
        #expect(decoded(forged(vertices: [good.vertices[0], good.vertices[0]])) == .corrupt("a landmark names a missing vertex"))
        #expect(decoded(forged(units: [.nan] + good.units.dropFirst())) == .corrupt("a landmark unit is not a positive number"))
        var steps = good.steps
        steps[Int(good.vertices[1]) * width + 1] = 5
        #expect(decoded(forged(steps: steps)) == .corrupt("a landmark is not at distance 0 from itself"))
    }

    @Test("a bit flipped in the landmark block (the file's end) fails the checksum: the cache is rebuilt")
    func flipped() throws {
        let scratch = try RoadGraphCacheTests.Scratch()
        defer { scratch.remove() }
        let fresh = try scratch.load()
        for offset in [1, 3, 40] {
            try scratch.damage { $0[$0.count - offset] ^= 0x10 }
            let reloaded = try scratch.load()
            #expect(reloaded.source == .imported(cacheMiss: .corrupt("checksum mismatch")))
            #expect(Self.same(reloaded.landmarks, fresh.landmarks))
        }
        #expect(try scratch.load().source == .cache)
    }
}
