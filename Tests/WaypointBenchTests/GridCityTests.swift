import Foundation
import RoadNetwork
import Testing
@testable import WaypointBench

/// The synthetic city `waypoint-bench roads` generates: deterministic, varied, and a network the real reader and
/// router accept. Small grids only (the 1M-node grid is the benchmark's business).
@Suite("The benchmark's grid city")
struct GridCityTests {
    @Test("the same seed writes the same bytes, another seed other bytes; every node and the asked-for classes are there")
    func deterministic() throws {
        let grid = GridCity(nodes: 1_600, seed: 7)
        let (first, second, other) = (Self.temporaryPath(), Self.temporaryPath(), Self.temporaryPath())
        defer { for path in [first, second, other] { try? FileManager.default.removeItem(atPath: path) } }
        let summary = try grid.write(to: first)
        _ = try grid.write(to: second)
        _ = try GridCity(nodes: 1_600, seed: 8).write(to: other)
        #expect(grid.side == 40 && grid.nodeCount == 1_600 && summary.nodes == 1_600)
        let bytes = try #require(FileManager.default.contents(atPath: first))
        #expect(bytes.count == summary.bytes)
        #expect(FileManager.default.contents(atPath: second) == bytes)
        #expect(FileManager.default.contents(atPath: other) != bytes)
        #expect(Set(summary.waysByClass.keys).isSuperset(of: ["residential", "tertiary", "secondary", "primary", "cycleway", "footway", "steps"]))
        #expect(summary.missingBlocks > 0)
        #expect(GridCity(nodes: 10_000).side == 100 && GridCity(nodes: 1_000_000).nodeCount == 1_000_000)
    }

    @Test("it imports through the normal reader into one connected network with one-way streets, names and surfaces")
    func imports() throws {
        let grid = GridCity(nodes: 2_500, seed: 18)
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let summary = try grid.write(to: path)
        let (graph, report) = try RoadGraphBuilder().build([path])
        #expect(report.missingNodeReferences == 0 && report.usableWays == summary.ways)
        #expect(graph.weakComponents().sizes.count == 1)
        #expect(graph.vertexCount > 2_400 && graph.vertexCount <= 2_500)
        #expect(graph.ways.contains { $0.use.forward != $0.use.backward })
        #expect(Set(graph.ways.compactMap(\.use.surface)).count >= 5)
        #expect(Set(graph.ways.compactMap(\.name)).count >= 50)
        let length = graph.edgeLengths.reduce(0, +)
        let blocks = 2 * grid.side * (grid.side - 1) - summary.missingBlocks
        #expect(abs(length / Double(blocks) - GridCity.spacingMetres) < 0.5)  // ~100 m blocks, both ways
    }

    @Test("routes on it are the shortest paths plain Dijkstra finds, corner to corner and between random vertices")
    func routes() throws {
        let grid = GridCity(nodes: 900, seed: 18)
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try grid.write(to: path)
        let graph = try RoadGraphBuilder().build([path]).graph
        let router = RoadRouter(graph: graph), dijkstra = ShortestPaths(graph: graph)
        let southWest = try #require(graph.vertexNodeIDs.firstIndex(of: grid.nodeID(row: 0, column: 0)))
        let northEast = try #require(graph.vertexNodeIDs.firstIndex(of: grid.nodeID(row: grid.side - 1, column: grid.side - 1)))
        var pairs = [(southWest, northEast), (northEast, southWest)]
        var random = SeededGenerator(seed: 18)
        for _ in 0..<30 { pairs.append((Int.random(in: 0..<graph.vertexCount, using: &random), Int.random(in: 0..<graph.vertexCount, using: &random))) }
        for (a, b) in pairs where a != b {
            let expected = dijkstra.path(from: a, to: b)?.weight
            let found = router.route(fromVertex: a, toVertex: b)?.weight
            #expect((expected == nil) == (found == nil))
            if let expected, let found { #expect(abs(found - expected) <= 1e-9 * expected) }
        }
        let corner = try #require(router.route(fromVertex: southWest, toVertex: northEast))
        #expect(corner.distance >= 2 * Double(grid.side - 1) * GridCity.spacingMetres * 0.99)
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("grid-\(UUID().uuidString).osm").path
    }
}
