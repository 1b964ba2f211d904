import Foundation
@testable import RoadNetwork

/// A synthetic grid city as OSM XML: `size` × `size` intersections about 100 m apart, rows and columns cut into ways of
/// 1–6 blocks with varied classes and surfaces, some one-way, a few blocks missing — a network unlike the real
/// extracts (every vertex a crossing, many equal-weight detours) for the search tests.
enum GridFixture {
    static let classes = ["residential", "cycleway", "tertiary", "primary", "track", "service", "secondary", "path"]
    static let surfaces = ["asphalt", "gravel", "sett", "compacted", "paving_stones"]

    static func xml(size: Int, seed: UInt64) -> String {
        var generator = SeededGenerator(seed: seed)
        var lines = ["<osm version=\"0.6\">"]
        for row in 0..<size {
            for column in 0..<size {
                lines.append("<node id=\"\(row * size + column + 1)\" lat=\"\(48 + Double(row) * 0.0009)\" lon=\"\(16 + Double(column) * 0.00135)\"/>")
            }
        }
        var wayID = 1
        for line in 0..<size {
            for horizontal in [true, false] {
                var start = 0
                while start < size - 1 {
                    let end = min(size - 1, start + Int.random(in: 1...6, using: &generator))
                    if Int.random(in: 0..<20, using: &generator) > 0 {  // 1 in 20 ways missing
                        let nodes = (start...end).map { horizontal ? line * size + $0 + 1 : $0 * size + line + 1 }
                        lines.append(way(id: wayID, nodes: nodes, using: &generator))
                        wayID += 1
                    }
                    start = end
                }
            }
        }
        lines.append("</osm>")
        return lines.joined(separator: "\n")
    }

    private static func way(id: Int, nodes: [Int], using generator: inout SeededGenerator) -> String {
        var tags = ["highway": classes.randomElement(using: &generator)!, "surface": surfaces.randomElement(using: &generator)!]
        if Int.random(in: 0..<10, using: &generator) == 0 { tags["oneway"] = "yes" }
        let refs = nodes.map { "<nd ref=\"\($0)\"/>" }.joined()
        let tagText = tags.sorted { $0.key < $1.key }.map { "<tag k=\"\($0.key)\" v=\"\($0.value)\"/>" }.joined()
        return "<way id=\"\(id)\">\(refs)\(tagText)</way>"
    }

    /// The grid's graph.
    static func graph(size: Int, seed: UInt64) throws -> RoadGraph {
        try RouteFixtures.graph(xml(size: size, seed: seed))
    }
}
