import Foundation
import Testing
@testable import RoadNetwork

/// Snapping onto the main network (``RoadComponents``): a point nearest to a small piece no route leaves is routed from
/// the main network instead, a route inside one small piece is still found, and the real extracts answer `NoRoute`
/// less often because of it.
@Suite struct RouteComponentTests {
    /// A 12 × 12 grid city (144 vertices: a main component) with a three-node island 30 m north of its north-west corner.
    static func cityWithIsland() throws -> RoadGraph {
        var lines = ["<osm version=\"0.6\">"]
        let size = 12
        for row in 0..<size {
            for column in 0..<size {
                lines.append("<node id=\"\(row * size + column + 1)\" lat=\"\(48 + Double(row) * 0.0009)\" lon=\"\(16 + Double(column) * 0.00135)\"/>")
            }
        }
        var way = 1
        for line in 0..<size {
            let across = (0..<size).map { "<nd ref=\"\(line * size + $0 + 1)\"/>" }.joined()
            let down = (0..<size).map { "<nd ref=\"\($0 * size + line + 1)\"/>" }.joined()
            lines.append("<way id=\"\(way)\">\(across)<tag k=\"highway\" v=\"residential\"/></way>")
            lines.append("<way id=\"\(way + 1)\">\(down)<tag k=\"highway\" v=\"residential\"/></way>")
            way += 2
        }
        let top = 48 + Double(size - 1) * 0.0009 + 0.00027  // 30 m north of the top row
        lines.append("<node id=\"9001\" lat=\"\(top)\" lon=\"16.0000\"/><node id=\"9002\" lat=\"\(top)\" lon=\"16.0010\"/>")
        lines.append("<node id=\"9003\" lat=\"\(top)\" lon=\"16.0020\"/>")
        lines.append("<way id=\"9000\"><nd ref=\"9001\"/><nd ref=\"9002\"/><nd ref=\"9003\"/><tag k=\"highway\" v=\"service\"/></way>")
        lines.append("</osm>")
        return try RouteFixtures.graph(lines.joined(separator: "\n"))
    }

    @Test func aPointNearestToASmallPieceIsRoutedFromTheMainNetwork() throws {
        let graph = try Self.cityWithIsland()
        let router = RoadRouter(graph: graph)
        #expect(router.components.sizes.count == 2)
        let nearIsland = RoadPoint(latitude: 48 + 11 * 0.0009 + 0.00025, longitude: 16.0010)  // 2 m from the island
        let downtown = RoadPoint(latitude: 48.0045, longitude: 16.0068)
        let route = try #require(try router.route(RouteRequest(origin: nearIsland, destination: downtown)).routes.first)
        #expect(route.segments.allSatisfy { !$0.nodeIDs.contains { $0 > 9000 } })
        let start = try #require(route.segments.first?.coordinates.first)
        #expect(abs(start.latitude - (48 + 11 * 0.0009)) < 1e-6)  // on the top row, 28 m away, not on the island
    }

    @Test func aRouteInsideOneSmallPieceStaysOnIt() throws {
        let router = RoadRouter(graph: try Self.cityWithIsland())
        let top = 48 + 11 * 0.0009 + 0.00027
        let route = try #require(try router.route(RouteRequest(origin: RoadPoint(latitude: top + 0.00001, longitude: 16.0002),
                                                               destination: RoadPoint(latitude: top + 0.00001, longitude: 16.0018))).routes.first)
        #expect(abs(route.distance - 119) < 3)  // 0.0016° of longitude at 48.01° N ≈ 119 m, along the island
    }

    @Test func withoutAMainEdgeInTheRadiusTheSmallPieceIsKept() throws {
        let router = RoadRouter(graph: try Self.cityWithIsland())
        let aboveIsland = RoadPoint(latitude: 48 + 11 * 0.0009 + 0.00027 + 0.0002, longitude: 16.0010)  // 22 m north of it
        let request = RouteRequest(origin: aboveIsland, destination: RoadPoint(latitude: 48.0045, longitude: 16.0068), snapRadius: 30)
        #expect(try router.route(request) == .noRoute(leg: 0))
    }

    @Test func kremsAnswersNoRouteLessOftenThanWithNearestSnapping() throws {
        let router = try #require(RouteFixtures.kremsRouter)
        var generator = SeededGenerator(seed: 19)
        let graph = router.graph
        let south = graph.shapeLatitudes.min()!, north = graph.shapeLatitudes.max()!
        let west = graph.shapeLongitudes.min()!, east = graph.shapeLongitudes.max()!
        var noRoute = 0, nearestInDifferentPieces = 0, pairs = 0
        while pairs < 200 {
            let a = RoadPoint(latitude: .random(in: south...north, using: &generator), longitude: .random(in: west...east, using: &generator))
            let b = RoadPoint(latitude: .random(in: south...north, using: &generator), longitude: .random(in: west...east, using: &generator))
            guard let snapA = router.snapIndex.nearest(latitude: a.latitude, longitude: a.longitude, radius: 200),
                  let snapB = router.snapIndex.nearest(latitude: b.latitude, longitude: b.longitude, radius: 200) else { continue }
            pairs += 1
            let pieceA = router.components.component(ofEdge: snapA.edge), pieceB = router.components.component(ofEdge: snapB.edge)
            if pieceA == nil || pieceA != pieceB { nearestInDifferentPieces += 1 }
            if case .noRoute = try router.route(RouteRequest(origin: a, destination: b)) {
                noRoute += 1
                // What remains: an end with no main edge within the radius (only a small piece is near it).
                let snaps = try router.snap([a, b], radius: 200)
                #expect(!router.components.isMain(edge: snaps[0].edge, as: .origin) || !router.components.isMain(edge: snaps[1].edge, as: .destination))
            }
        }
        // Krems: 30 strong components, the main one 1,041 vertices, the next 19. Nearest-edge snapping put the two ends
        // in different pieces (NoRoute unless one piece reaches the other) in 32 of 200 pairs; 15 NoRoutes remain.
        #expect(nearestInDifferentPieces > 0)
        #expect(noRoute < nearestInDifferentPieces)
    }

    /// Brute force: two vertices share a strong component exactly when each reaches the other (breadth-first over the
    /// allowed arcs), on a grid city with one-way streets and missing blocks.
    @Test func strongComponentsAreMutualReachability() throws {
        let graph = try GridFixture.graph(size: 9, seed: 7)
        let (component, sizes) = graph.strongComponents()
        #expect(sizes.reduce(0, +) == graph.vertexCount)
        let reach = (0..<graph.vertexCount).map { Self.reachable(from: $0, in: graph) }
        for a in 0..<graph.vertexCount {
            for b in 0..<graph.vertexCount {
                #expect((component[a] == component[b]) == (reach[a].contains(b) && reach[b].contains(a)))
            }
        }
        #expect(sizes.count > 1)  // the one-way streets and missing blocks do cut some pieces off
    }

    static func reachable(from start: Int, in graph: RoadGraph) -> Set<Int> {
        var seen: Set<Int> = [start], queue = [start]
        while let vertex = queue.popLast() {
            graph.forEachArc(from: vertex) { arc in if seen.insert(arc.to).inserted { queue.append(arc.to) } }
        }
        return seen
    }
}
