import Foundation
import ReferenceData
@testable import RoadNetwork

/// The real extracts of `../shared/data/` (ODbL 1.0, © OpenStreetMap contributors) and helpers around them.
enum OSMFixtures {
    static let krems = path("krems.osm.gz")
    static let monaco = path("monaco.osm.gz")
    static let helsinki = path("helsinki.osm.pbf")

    /// A file of the reference data (``ReferenceDataDirectory``); a path that does not exist when it is not found, so the
    /// tests fail by naming it.
    static func path(_ name: String) -> String {
        ((try? ReferenceDataDirectory.file(name)) ?? URL(fileURLWithPath: "/reference-data-not-found/\(name)")).path
    }

    /// A fresh temporary file path ending in `suffix`.
    static func temporaryPath(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("osm-\(UUID().uuidString)\(suffix)").path
    }
}

/// A visitor that keeps everything (tests only: extracts here are small).
struct CollectingVisitor: OSMVisitor {
    var wanted: OSMElementKinds = .all
    var header: OSMHeader?
    var nodes: [OSMNode] = []
    var ways: [OSMWay] = []
    var relations: [OSMRelation] = []

    mutating func visit(header: OSMHeader) throws { self.header = header }
    mutating func visit(node: OSMNode) throws { nodes.append(node) }
    mutating func visit(way: OSMWay) throws { ways.append(way) }
    mutating func visit(relation: OSMRelation) throws { relations.append(relation) }

    static func read(_ path: String, wanted: OSMElementKinds = .all) throws -> CollectingVisitor {
        var visitor = CollectingVisitor(wanted: wanted)
        try OSMExtract(path: path).read(into: &visitor)
        return visitor
    }
}
