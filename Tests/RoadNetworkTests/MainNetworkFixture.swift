import Foundation
@testable import RoadNetwork

/// A hand-made city for the main-network snapping rule, and a breadth-first oracle of it.
///
/// An 11 × 11 grid of two-way residential streets about 100 m apart (121 vertices: the one main piece, node ids
/// `row * 11 + column + 1`, row 0 along 48° N, column 0 along 16° E), and around it pieces whose answers are known:
/// - **stub out**: a one-way street from the top row (column 2) 44 m north to a dead end (node 9001): reached from the
///   main piece, cannot ride back into it;
/// - **stub in**: a one-way street from a dead end (9002) 44 m north of the top row into it (column 6): rides into the
///   main piece, is never reached from it;
/// - **island**: a two-way service street (9011–9012) 74 m east of the grid, connected to nothing;
/// - **feeder**: a two-way street (9021–9022–9023) 55 m south of the grid with a one-way street from 9023 into the
///   bottom row (column 5): a piece of two vertices that reaches the main piece but is not reached;
/// - **pocket**: a two-way street (9031–9032) 55 m north of the top row, fed by a one-way street from column 9: reached,
///   never left.
enum MainNetworkFixture {
    static let size = 11
    static func latitude(row: Double) -> Double { 48 + row * 0.0009 }
    static func longitude(column: Double) -> Double { 16 + column * 0.00135 }
    static func node(row: Int, column: Int) -> Int { row * size + column + 1 }

    static let xml: String = {
        var lines = ["<osm version=\"0.6\">"]
        for row in 0..<size {
            for column in 0..<size {
                lines.append("<node id=\"\(node(row: row, column: column))\" lat=\"\(latitude(row: Double(row)))\" lon=\"\(longitude(column: Double(column)))\"/>")
            }
        }
        for line in 0..<size {
            let across = (0..<size).map { node(row: line, column: $0) }, down = (0..<size).map { node(row: $0, column: line) }
            lines.append(way(id: 1 + 2 * line, across, "residential"))
            lines.append(way(id: 2 + 2 * line, down, "residential"))
        }
        let top = latitude(row: 10), south = latitude(row: 0) - 0.0005, east = longitude(column: 10) + 0.001
        lines += [extra(9001, top + 0.0004, longitude(column: 2)), extra(9002, top + 0.0004, longitude(column: 6)),
                  extra(9011, latitude(row: 2), east), extra(9012, latitude(row: 4), east),
                  extra(9021, south, longitude(column: 1.5)), extra(9022, south, longitude(column: 3)), extra(9023, south, longitude(column: 4.5)),
                  extra(9031, top + 0.0005, longitude(column: 8.5)), extra(9032, top + 0.0005, longitude(column: 9.5))]
        lines.append(way(id: 9100, [node(row: 10, column: 2), 9001], "residential", oneway: true))
        lines.append(way(id: 9200, [9002, node(row: 10, column: 6)], "residential", oneway: true))
        lines.append(way(id: 9300, [9011, 9012], "service"))
        lines.append(way(id: 9400, [9021, 9022, 9023], "residential"))
        lines.append(way(id: 9401, [9023, node(row: 0, column: 5)], "residential", oneway: true))
        lines.append(way(id: 9500, [9031, 9032], "residential"))
        lines.append(way(id: 9501, [node(row: 10, column: 9), 9031], "residential", oneway: true))
        lines.append("</osm>")
        return lines.joined(separator: "\n")
    }()

    private static func extra(_ id: Int, _ latitude: Double, _ longitude: Double) -> String {
        "<node id=\"\(id)\" lat=\"\(latitude)\" lon=\"\(longitude)\"/>"
    }

    private static func way(id: Int, _ nodes: [Int], _ highway: String, oneway: Bool = false) -> String {
        let refs = nodes.map { "<nd ref=\"\($0)\"/>" }.joined()
        return "<way id=\"\(id)\">\(refs)<tag k=\"highway\" v=\"\(highway)\"/>\(oneway ? "<tag k=\"oneway\" v=\"yes\"/>" : "")</way>"
    }

    static let router: RoadRouter? = (try? RouteFixtures.graph(xml)).map { RoadRouter(graph: $0) }
}

/// "Can ride to the biggest piece" and "can be reached from it" by breadth-first search over the allowed arcs, and the
/// rule's answer by brute force over every edge — independent of Tarjan's numbering and of the snap grid.
struct MainNetworkOracle {
    let graph: RoadGraph
    /// Per vertex: a route leads from it into the biggest piece / from the biggest piece to it.
    let ridesToMain: [Bool]
    let reachedFromMain: [Bool]
    /// Vertices of the biggest strongly connected piece.
    let main: Set<Int>

    init(graph: RoadGraph) {
        self.graph = graph
        let out = Self.neighbours(graph, backwards: false), into = Self.neighbours(graph, backwards: true)
        let forward = (0..<graph.vertexCount).map { Self.reachable(from: $0, neighbours: out) }
        let backward = (0..<graph.vertexCount).map { Self.reachable(from: $0, neighbours: into) }
        let pieces = (0..<graph.vertexCount).map { forward[$0].intersection(backward[$0]) }
        let biggest = pieces.max { $0.count < $1.count } ?? []
        main = biggest
        ridesToMain = forward.map { !$0.isDisjoint(with: biggest) }
        reachedFromMain = backward.map { !$0.isDisjoint(with: biggest) }
    }

    /// Per vertex, the vertices one allowed arc leads to (from, when `backwards`), read from the edge arrays — not from
    /// the graph's adjacency rows, which the components are computed from.
    static func neighbours(_ graph: RoadGraph, backwards: Bool) -> [[Int]] {
        var lists = [[Int]](repeating: [], count: graph.vertexCount)
        for edge in 0..<graph.edgeCount {
            let source = Int(graph.edgeSources[edge]), target = Int(graph.edgeTargets[edge])
            let (tail, head) = backwards ? (target, source) : (source, target)  // the forward arc, as searched
            if graph.edgeForwardWeights[edge].isFinite { lists[tail].append(head) }
            if graph.edgeBackwardWeights[edge].isFinite { lists[head].append(tail) }
        }
        return lists
    }

    /// Every vertex reachable from `start` by breadth-first search over `neighbours`.
    static func reachable(from start: Int, neighbours: [[Int]]) -> Set<Int> {
        var seen: Set<Int> = [start], queue = [start], next = 0
        while next < queue.count {
            for other in neighbours[queue[next]] where seen.insert(other).inserted { queue.append(other) }
            next += 1
        }
        return seen
    }

    /// Whether `snap` passes the rule in `role`: a point at an edge's end leaves or is reached through that end either
    /// way; elsewhere only as the edge's directions allow.
    func passes(_ snap: SnapIndex.Snap, as role: RoadComponents.Role) -> Bool {
        let edge = snap.edge, length = graph.edgeLengths[edge], offset = min(snap.offset, length)
        let source = Int(graph.edgeSources[edge]), target = Int(graph.edgeTargets[edge])
        let forward = graph.edgeForwardWeights[edge].isFinite, backward = graph.edgeBackwardWeights[edge].isFinite
        let leaves = ((forward || offset == length) && ridesToMain[target]) || ((backward || offset == 0) && ridesToMain[source])
        let entered = ((forward || offset == 0) && reachedFromMain[source]) || ((backward || offset == length) && reachedFromMain[target])
        switch role {
        case .origin: return leaves
        case .destination: return entered
        case .via: return leaves && entered
        }
    }

    /// The rule by brute force: every edge within `radius` nearest first (``SnapBruteForce``); the first that passes,
    /// else the nearest; `nil` when none is within the radius.
    func expected(latitude: Double, longitude: Double, radius: Double, as role: RoadComponents.Role) -> SnapIndex.Snap? {
        let all = SnapBruteForce.candidates(graph, latitude: latitude, longitude: longitude, radius: radius, limit: .max)
        return all.first { passes($0, as: role) } ?? all.first
    }
}
