import Foundation
import Testing
@testable import RoadNetwork

@Suite("Reading OpenStreetMap extracts")
struct OSMReaderTests {
    @Test("OSM XML: nodes, ways, relations, tags and entities, in file order")
    func xmlDocument() throws {
        let path = OSMFixtures.temporaryPath(".osm")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        <?xml version='1.0' encoding='UTF-8'?>
        <!-- a comment with <angle> brackets -->
        <osm version="0.6" generator="test">
          <bounds minlat="48.1" minlon="15.5" maxlat="48.5" maxlon="15.7"/>
          <node id="1" lat="48.4100000" lon="15.6000000" version="1"/>
          <node id="2" lat='48.4110000' lon='15.6010000'>
            <tag k="name" v="Caf&#233; &amp; Bar &quot;Zur Post&quot; &lt;1&gt;"/>
          </node>
          <node id="3" lat="-0.5" lon="-179.9999999" action="delete"/>
          <way id="10">
            <nd ref="1"/>
            <nd ref="2"/>
            <tag k="highway" v="cycleway"/>
            <tag k="name" v="Ring > Straße"/>
          </way>
          <relation id="100">
            <member type="way" ref="10" role=""/>
            <member type="node" ref="1" role="stop"/>
            <tag k="route" v="bicycle"/>
            <tag k="network" v="lcn"/>
          </relation>
        </osm>
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let read = try CollectingVisitor.read(path)
        #expect(read.header?.bounds.map { [$0.south, $0.west, $0.north, $0.east] } == [48.1, 15.5, 48.5, 15.7])
        #expect(read.nodes.map(\.id) == [1, 2])  // action="delete" skipped
        #expect(read.nodes[0].latitude == 48.41 && read.nodes[0].longitude == 15.6)
        #expect(read.nodes[1].tags["name"] == "Café & Bar \"Zur Post\" <1>")
        #expect(read.ways == [OSMWay(id: 10, nodeIDs: [1, 2], tags: OSMTags([("highway", "cycleway"), ("name", "Ring > Straße")]))])
        #expect(read.relations.first?.members == [OSMMember(type: .way, ref: 10), OSMMember(type: .node, ref: 1, role: "stop")])
        #expect(read.relations.first?.tags["network"] == "lcn")
    }

    @Test("a pass reads only the kinds it wants")
    func wantedKinds() throws {
        let ways = try CollectingVisitor.read(OSMFixtures.krems, wanted: .ways)
        #expect(ways.nodes.isEmpty && ways.relations.isEmpty && !ways.ways.isEmpty)
        let nodes = try CollectingVisitor.read(OSMFixtures.helsinki, wanted: .nodes)
        #expect(nodes.ways.isEmpty && nodes.relations.isEmpty && !nodes.nodes.isEmpty)
    }

    /// What osmium-tool 1.15 says of the three extracts (`osmium check-refs FILE`: counts, and the references of ways
    /// to nodes the file lacks — Helsinki's extract cut its ways at the border, the others kept them whole),
    /// checked on 2026-11-26.
    @Test("the real extracts read whole, with osmium's counts", arguments: [
        (OSMFixtures.krems, 15_042, 2_402, 73, 0),
        (OSMFixtures.monaco, 13_739, 1_944, 77, 0),
        (OSMFixtures.helsinki, 24_260, 5_130, 620, 4_525),
    ])
    func realExtracts(path: String, nodes: Int, ways: Int, relations: Int, missingNodes: Int) throws {
        let read = try CollectingVisitor.read(path)
        #expect(read.nodes.count == nodes)
        #expect(read.ways.count == ways)
        #expect(read.relations.count == relations)
        let ids = Set(read.nodes.map(\.id))
        #expect(ids.count == nodes)
        // osmium counts references (3,815 distinct node ids in Helsinki's 4,525).
        #expect(read.ways.flatMap(\.nodeIDs).filter { !ids.contains($0) }.count == missingNodes)
    }

    @Test("PBF: Helsinki's header, dense-node tags and cycleways")
    func helsinki() throws {
        let read = try CollectingVisitor.read(OSMFixtures.helsinki)
        let bounds = try #require(read.header?.bounds)
        #expect(abs(bounds.west - 24.9351762) < 1e-7 && abs(bounds.north - 60.179113) < 1e-7)
        // `osmium tags-filter helsinki.osm.pbf w/highway=cycleway -R | osmium fileinfo -e`: 120 (the data README says 121).
        #expect(read.ways.filter { $0.tags["highway"] == "cycleway" }.count == 120)
        #expect(read.ways.filter { $0.tags["highway"] == "steps" }.count == 141)
        #expect(read.nodes.contains { !$0.tags.isEmpty })
    }

    @Test("bicycle route relations, as osmium counts them", arguments: [
        (OSMFixtures.krems, 6), (OSMFixtures.monaco, 0), (OSMFixtures.helsinki, 13),
    ])
    func bicycleRoutes(path: String, count: Int) throws {
        let read = try CollectingVisitor.read(path, wanted: .relations)
        #expect(read.relations.filter { $0.tags["route"] == "bicycle" }.count == count)
    }

    @Test("Krems: cycleways and bicycle=designated ways")
    func krems() throws {
        let read = try CollectingVisitor.read(OSMFixtures.krems, wanted: .ways)
        #expect(read.ways.filter { $0.tags["highway"] == "cycleway" }.count == 17)
        #expect(read.ways.filter { $0.tags["bicycle"] == "designated" }.count == 15)
    }
}
