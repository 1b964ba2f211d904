import Foundation
import Testing
@testable import RoadNetwork

/// The graph's compact layout (`docs/road-network.md`, "The graph"): coordinates in OSM's 10⁻⁷ degree, shapes whose ends
/// are the vertices, ways sharing their kinds, offsets and edges of shape points computed instead of stored — each
/// checked against the extract itself (Krems as XML, Helsinki as PBF, whose coordinates arrive as `1e-9 × (offset +
/// granularity × value)` and are rounded here).
@Suite("The compact graph layout")
struct RoadGraphLayoutTests {
    static let cities: [(name: String, path: String)] = [("Krems", OSMFixtures.krems), ("Helsinki", OSMFixtures.helsinki)]

    @Test("every shape point reads back its OSM node: the id, and the coordinates rounded to 10⁻⁷°; an edge's ends are its vertices", arguments: cities)
    func shapePoints(city: (name: String, path: String)) throws {
        let graph = try RoadGraphBuilder().build([city.path]).graph
        let read = try CollectingVisitor.read(city.path, wanted: .nodes)
        var nodes: [Int64: (Double, Double)] = [:]
        for node in read.nodes { nodes[node.id] = (node.latitude, node.longitude) }
        var wrong = 0
        for point in graph.shapeNodeIDs.indices {
            guard let (latitude, longitude) = nodes[graph.shapeNodeIDs[point]] else { wrong += 1; continue }
            for (stored, original) in [(graph.shapeLatitudes[point], latitude), (graph.shapeLongitudes[point], longitude)] {
                let units = stored * 10_000_000
                if abs(units - units.rounded()) > 1e-6 || abs(stored - original) > 0.5e-7 + 1e-12 { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(city.name): \(wrong) shape points differ from their OSM nodes")
        for edge in 0..<graph.edgeCount {
            let first = Int(graph.edgeShapeStarts[edge]), last = Int(graph.edgeShapeStarts[edge + 1]) - 1
            for (point, vertex) in [(first, Int(graph.edgeSources[edge])), (last, Int(graph.edgeTargets[edge]))] {
                #expect(graph.shapeNodeIDs[point] == graph.vertexNodeIDs[vertex] && graph.shapeLatitudes[point] == graph.vertexLatitudes[vertex]
                        && graph.shapeLongitudes[point] == graph.vertexLongitudes[vertex], "\(city.name): edge \(edge)")
            }
        }
        #expect(graph.shapeNodeIDs.interior.count == graph.shapeNodeIDs.count - 2 * graph.edgeCount)  // ends are not stored twice
    }

    @Test("lengths are measured between the stored coordinates: an edge's length is its segments' sum exactly, and so is the offset of its last point; every shape point's edge holds it", arguments: cities)
    func lengthsAndOffsets(city: (name: String, path: String)) throws {
        let graph = try RoadGraphBuilder().build([city.path]).graph
        var mismatches = 0
        for edge in 0..<graph.edgeCount {
            let first = Int(graph.edgeShapeStarts[edge]), end = Int(graph.edgeShapeStarts[edge + 1])
            var sum = 0.0
            for point in first..<(end - 1) { sum += graph.segmentLength(point) }
            if sum != graph.edgeLengths[edge] || graph.shapeOffset(ofPoint: end - 1, edge: edge) != graph.edgeLengths[edge] { mismatches += 1 }
            for point in first..<end where graph.edge(ofPoint: point) != edge { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(city.name)")
    }

    @Test("ways keep their OSM id, name and ref; ways alike share one kind, and rebuilding the ways gives the same value", arguments: cities)
    func ways(city: (name: String, path: String)) throws {
        let graph = try RoadGraphBuilder().build([city.path]).graph
        let read = try CollectingVisitor.read(city.path, wanted: .ways)
        var tags: [Int64: OSMTags] = [:]
        for way in read.ways { tags[way.id] = way.tags }
        for index in graph.ways.indices {
            let way = graph.ways[index]
            #expect(way.osmID == graph.ways.osmIDs[index] && way.use == graph.ways.use(of: index))
            #expect(way.name == tags[way.osmID]?["name"] && way.ref == tags[way.osmID]?["ref"], "\(city.name): way \(way.osmID)")
        }
        #expect(graph.ways.kindCount * 2 < graph.ways.count, "\(city.name): \(graph.ways.kindCount) kinds for \(graph.ways.count) ways")
        #expect(RoadWays(Array(graph.ways)) == graph.ways)
    }
}
