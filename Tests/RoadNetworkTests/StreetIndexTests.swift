import Foundation
import Testing
@testable import RoadNetwork

@Suite("Streets")
struct StreetIndexTests {
    @Test("search is case- and diacritic-insensitive, every word, the last as a prefix; exact names first")
    func byName() throws {
        let graph = try RoadGraphBuilder().build([OSMFixtures.krems]).graph
        let streets = StreetIndex(graph: graph)
        #expect(!streets.streets.isEmpty)
        let street = try #require(streets.streets.first { $0.name.contains("straße") && $0.name.split(separator: " ").count == 1 })
        let folded = street.name.uppercased().replacingOccurrences(of: "SS", with: "ß")
        #expect(streets.search(street.name, limit: 5).first?.id == street.id)
        #expect(streets.search(String(folded.prefix(4)), limit: 500).contains { $0.id == street.id })
        #expect(streets.search(street.name.replacingOccurrences(of: "straße", with: "strasse"), limit: 5).contains { $0.id == street.id })
        #expect(streets.search("zzzz-no-such-street", limit: 5).isEmpty)
        #expect(streets.search("", limit: 5).isEmpty)
    }

    @Test("a street is the named chain of ways that meet; its id, ways, edges and box agree")
    func grouping() throws {
        let graph = try RoadGraphBuilder().build([OSMFixtures.helsinki]).graph
        let streets = StreetIndex(graph: graph)
        for street in streets.streets {
            #expect(street.id == street.wayIDs.first)
            #expect(street.edges.allSatisfy { streets.street(ofEdge: $0)?.id == street.id })
            #expect(street.south <= street.north && street.west <= street.east)
            #expect(streets.street(id: street.id) == street)
        }
        // Every named edge belongs to a street with its name.
        for edge in 0..<graph.edgeCount {
            guard let name = graph.ways[Int(graph.edgeWays[edge])].name else { continue }
            #expect(streets.street(ofEdge: edge)?.name.isEmpty == false, "\(name)")
        }
    }

    @Test("streets around a point, nearest first, within the radius")
    func nearPoint() throws {
        let graph = try RoadGraphBuilder().build([OSMFixtures.helsinki]).graph
        let streets = StreetIndex(graph: graph)
        let snaps = SnapIndex(graph: graph)
        let found = streets.near(latitude: 60.1699, longitude: 24.9384, radius: 300, limit: 10, snaps: snaps)
        #expect(!found.isEmpty && found.count <= 10)
        #expect(found.map(\.distance) == found.map(\.distance).sorted())
        #expect(found.allSatisfy { $0.distance <= 300 })
        #expect(streets.near(latitude: 60.10, longitude: 24.94, radius: 100, limit: 10, snaps: snaps).isEmpty)
    }
}
