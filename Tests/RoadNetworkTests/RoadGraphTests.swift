import Foundation
import Testing
@testable import RoadNetwork

@Suite("The road graph")
struct RoadGraphTests {
    /// A small extract with known answers: a square of residential streets A-B-C-D with a cycleway diagonal A-C, a
    /// one-way street, steps, a motorway (not usable) and a way referring to a node the file lacks.
    static let square = """
        <osm version="0.6">
          <node id="1" lat="48.4000" lon="15.6000"/>
          <node id="2" lat="48.4000" lon="15.6100"/>
          <node id="3" lat="48.4100" lon="15.6100"/>
          <node id="4" lat="48.4100" lon="15.6000"/>
          <node id="5" lat="48.4050" lon="15.6050"/>
          <node id="6" lat="48.4200" lon="15.6000"/>
          <node id="7" lat="48.4200" lon="15.6100"/>
          <node id="8" lat="48.5000" lon="15.7000"/>
          <node id="9" lat="48.5000" lon="15.7100"/>
          <way id="10"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/><tag k="name" v="Südtiroler Platz"/></way>
          <way id="11"><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/></way>
          <way id="12"><nd ref="3"/><nd ref="4"/><tag k="highway" v="residential"/><tag k="oneway" v="yes"/></way>
          <way id="13"><nd ref="4"/><nd ref="1"/><tag k="highway" v="residential"/></way>
          <way id="14"><nd ref="1"/><nd ref="5"/><nd ref="3"/><tag k="highway" v="cycleway"/></way>
          <way id="15"><nd ref="4"/><nd ref="6"/><tag k="highway" v="steps"/></way>
          <way id="16"><nd ref="6"/><nd ref="7"/><tag k="highway" v="motorway"/></way>
          <way id="17"><nd ref="7"/><nd ref="99"/><nd ref="3"/><tag k="highway" v="residential"/></way>
          <way id="18"><nd ref="8"/><nd ref="9"/><tag k="highway" v="track"/></way>
          <relation id="20"><member type="way" ref="14" role=""/><tag k="route" v="bicycle"/><tag k="network" v="lcn"/></relation>
        </osm>
        """

    static func build(_ document: String) throws -> (RoadGraph, RoadGraphBuilder.Report) {
        let path = OSMFixtures.temporaryPath(".osm")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        return try RoadGraphBuilder().build([path])
    }

    @Test("degree-2 nodes are contracted into edge shapes; unusable ways and missing nodes are left out")
    func structure() throws {
        let (graph, report) = try Self.build(Self.square)
        #expect(report.usableWays == 8)  // all but the motorway
        #expect(report.missingNodeReferences == 1)
        #expect(report.cycleNetworkWays == 1)
        // 5 is inside the cycleway; 7 is on the motorway and on a way cut at the missing 99 into one-node pieces.
        #expect(Set(graph.vertexNodeIDs) == [1, 2, 3, 4, 6, 8, 9])
        let cycleway = try #require((0..<graph.edgeCount).first { graph.ways[Int(graph.edgeWays[$0])].osmID == 14 })
        #expect(Array(graph.shapeNodes(of: cycleway)) == [1, 5, 3])
        #expect(graph.ways.first { $0.osmID == 10 }?.name == "Südtiroler Platz")
        // Way 17 keeps its piece 7 → (cut at 99) and 99 → 3: both pieces have one node only, so no edge.
        #expect(!(0..<graph.edgeCount).contains { graph.ways[Int(graph.edgeWays[$0])].osmID == 17 })
    }

    @Test("edge lengths are great-circle sums and weights follow the profile and one-way rules")
    func weights() throws {
        let (graph, _) = try Self.build(Self.square)
        let oneway = try #require((0..<graph.edgeCount).first { graph.ways[Int(graph.edgeWays[$0])].osmID == 12 })
        #expect(graph.edgeForwardWeights[oneway].isFinite && graph.edgeBackwardWeights[oneway] == .infinity)
        #expect(abs(graph.edgeLengths[oneway] - 738.108) < 0.01)  // 0.01° of longitude at 48.41° N (haversine, R 6,371,008.8 m)
        #expect(abs(graph.edgeForwardWeights[oneway] - graph.edgeLengths[oneway] / 1.2) < 1e-9)
        let steps = try #require((0..<graph.edgeCount).first { graph.ways[Int(graph.edgeWays[$0])].osmID == 15 })
        #expect(abs(graph.edgeForwardWeights[steps] - graph.edgeLengths[steps] * (18.0 / 4.0) / 0.5) < 1e-9)
    }

    @Test("shortest paths take the preferred cycleway, respect one-way streets and report unreachable vertices")
    func shortestPaths() throws {
        let (graph, _) = try Self.build(Self.square)
        let router = ShortestPaths(graph: graph)
        func vertex(_ id: Int64) -> Int { graph.vertexNodeIDs.firstIndex(of: id)! }
        let diagonal = try #require(router.path(from: vertex(1), to: vertex(3)))
        #expect(diagonal.arcs.map { graph.ways[Int(graph.edgeWays[$0.edge])].osmID } == [14])
        // 4 → 3 goes against the one-way street: around the square instead.
        let around = try #require(router.path(from: vertex(4), to: vertex(3)))
        #expect(!around.arcs.contains { graph.ways[Int(graph.edgeWays[$0.edge])].osmID == 12 })
        #expect(router.path(from: vertex(1), to: vertex(8)) == nil)  // a separate component
        #expect(router.path(from: vertex(2), to: vertex(2))?.weight == 0)
    }

    /// An independent check of Dijkstra on real data: Bellman–Ford (edge relaxation to a fixed point) from a few
    /// sources gives the same weights to every vertex.
    @Test("Dijkstra agrees with Bellman–Ford on Krems")
    func againstBellmanFord() throws {
        let (graph, _) = try RoadGraphBuilder().build([OSMFixtures.krems])
        #expect(graph.vertexCount > 1_000)
        let router = ShortestPaths(graph: graph)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2 {
            let source = Int.random(in: 0..<graph.vertexCount, using: &generator)
            let dijkstra = router.weights(from: source)
            var bellmanFord = [Double](repeating: .infinity, count: graph.vertexCount)
            bellmanFord[source] = 0
            var changed = true
            while changed {
                changed = false
                for edge in 0..<graph.edgeCount {
                    let a = Int(graph.edgeSources[edge]), b = Int(graph.edgeTargets[edge])
                    if bellmanFord[a] + graph.edgeForwardWeights[edge] < bellmanFord[b] {
                        bellmanFord[b] = bellmanFord[a] + graph.edgeForwardWeights[edge]
                        changed = true
                    }
                    if bellmanFord[b] + graph.edgeBackwardWeights[edge] < bellmanFord[a] {
                        bellmanFord[a] = bellmanFord[b] + graph.edgeBackwardWeights[edge]
                        changed = true
                    }
                }
            }
            for vertex in 0..<graph.vertexCount {
                if bellmanFord[vertex].isInfinite {
                    #expect(dijkstra[vertex].isInfinite)
                } else {
                    #expect(abs(dijkstra[vertex] - bellmanFord[vertex]) <= 1e-9 * max(1, bellmanFord[vertex]))
                }
            }
        }
    }

    @Test("several extracts load into one graph; disjoint regions do not connect")
    func severalExtracts() throws {
        let (both, _) = try RoadGraphBuilder().build([OSMFixtures.krems, OSMFixtures.monaco])
        let (krems, _) = try RoadGraphBuilder().build([OSMFixtures.krems])
        let (monaco, _) = try RoadGraphBuilder().build([OSMFixtures.monaco])
        #expect(both.vertexCount == krems.vertexCount + monaco.vertexCount)
        #expect(both.edgeCount == krems.edgeCount + monaco.edgeCount)
        let inKrems = try #require(both.vertexNodeIDs.firstIndex(of: krems.vertexNodeIDs[0]))
        let inMonaco = try #require(both.vertexNodeIDs.firstIndex(of: monaco.vertexNodeIDs[0]))
        #expect(ShortestPaths(graph: both).path(from: inKrems, to: inMonaco) == nil)
    }

    @Test("a damaged extract builds no graph")
    func damaged() throws {
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: OSMFixtures.krems)))
        let path = OSMFixtures.temporaryPath(".osm.gz")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(whole.prefix(whole.count / 2)).write(to: URL(fileURLWithPath: path))
        #expect(throws: OSMReadError.self) { try RoadGraphBuilder().build([OSMFixtures.monaco, path]) }
    }
}
