import Foundation
@testable import PathReview
import ReferenceData
import RoadNetwork
import ServiceKit
import Testing

/// The planner on the Krems extract. Oracles independent of the planner: every consecutive node pair of a route must be
/// consecutive in some OSM way's node list as the graph stores it (a brute-force set of all such pairs); lengths are
/// bounded by the great circle between the ends; the names come from osmium (``KremsByOsmium``).
@Suite("path-review: draft pieces on the network")
struct PathDraftPlannerTests {
    static let roads = PathReviewTestNetwork.roads
    static let planner = PathDraftPlanner(roads: roads)

    /// Every pair of OSM nodes that follow each other on a way of the graph, both ways round.
    static let networkPairs: Set<[Int64]> = {
        let graph = roads.network.graph
        var pairs: Set<[Int64]> = []
        for edge in 0..<graph.edgeCount {
            let nodes = Array(graph.shapeNodes(of: edge))
            for (a, b) in zip(nodes, nodes.dropFirst()) { pairs.insert([a, b]); pairs.insert([b, a]) }
        }
        return pairs
    }()

    static func street(_ name: String) throws -> StreetCatalog.Entry {
        try #require(roads.streets.search(name, offset: 0, limit: 20).entries.first { $0.street.name == name })
    }

    static func fields(_ body: () throws -> Void) -> [String: String] {
        do {
            try body()
            return [:]
        } catch let problem as Problem {
            return Dictionary(problem.fieldErrors.map { ($0.field, $0.code) }, uniquingKeysWith: { a, _ in a })
        } catch {
            return ["unexpected": "\(error)"]
        }
    }

    static func expectOnNetwork(_ route: DraftRoute) {
        for (a, b) in zip(route.nodeIDs, route.nodeIDs.dropFirst()) {
            #expect(networkPairs.contains([a, b]), "\(a) → \(b) is not a piece of a way")
        }
    }

    @Test("a whole street runs along its own ways, end to end")
    func wholeStreet() throws {
        let hafen = try Self.street("Hafenstraße")
        let (route, obstacles) = try Self.planner.plan(pieces: [.street(id: hafen.street.id, from: nil, to: nil)], obstacles: [])
        #expect(obstacles.isEmpty && route.nodeIDs.count >= 2)
        Self.expectOnNetwork(route)
        let graph = Self.roads.network.graph
        let streetNodes = Set(hafen.street.edges.flatMap { graph.shapeNodes(of: $0) })
        #expect(route.nodeIDs.allSatisfy(streetNodes.contains), "no node off the street")
        #expect(route.lengthMetres <= hafen.length + 1)
        let ends = (RoadPoint(latitude: route.coordinates[0][0], longitude: route.coordinates[0][1]),
                    RoadPoint(latitude: route.coordinates.last![0], longitude: route.coordinates.last![1]))
        #expect(route.lengthMetres >= ends.0.metres(to: ends.1) - 1)
    }

    @Test("two streets that do not meet are joined along the network; an obstacle on the way is placed on it")
    func joinedWithObstacle() throws {
        let (hafen, wiener) = (try Self.street("Hafenstraße"), try Self.street("Wiener Straße"))
        let near = hafen.street.edges.first.map { Self.roads.network.graph.shape(of: $0)[0] }!
        let obstacle = DraftObstacleRequest(type: .pothole, point: RoadPoint(latitude: near.latitude + 0.0001, longitude: near.longitude), note: "deep")
        let (route, placed) = try Self.planner.plan(pieces: [.street(id: hafen.street.id, from: nil, to: nil),
                                                            .street(id: wiener.street.id, from: nil, to: nil)], obstacles: [obstacle])
        Self.expectOnNetwork(route)
        let graph = Self.roads.network.graph
        let nodes = Set(route.nodeIDs)
        #expect(!Set(hafen.street.edges.flatMap { graph.shapeNodes(of: $0) }).isDisjoint(with: nodes))
        #expect(!Set(wiener.street.edges.flatMap { graph.shapeNodes(of: $0) }).isDisjoint(with: nodes))
        let one = try #require(placed.first)
        #expect(one.type == .pothole && one.note == "deep" && one.offsetMetres >= 0 && one.offsetMetres <= route.lengthMetres)
        #expect(RoadPoint(latitude: one.latitude, longitude: one.longitude).metres(to: obstacle.point) <= PathDraftPlanner.obstacleTolerance)
    }

    @Test("the part of a street between two points, and a drawn line, snap to the network")
    func partAndLine() throws {
        let hafen = try Self.street("Hafenstraße")
        let (route, _) = try Self.planner.plan(pieces: [.street(id: hafen.street.id, from: nil, to: nil)], obstacles: [])
        let first = RoadPoint(latitude: route.coordinates[0][0], longitude: route.coordinates[0][1])
        let last = RoadPoint(latitude: route.coordinates.last![0], longitude: route.coordinates.last![1])
        let part = try Self.planner.plan(pieces: [.street(id: hafen.street.id, from: first, to: last)], obstacles: []).0
        #expect(part.nodeIDs == route.nodeIDs || part.nodeIDs == route.nodeIDs.reversed())
        let line = try Self.planner.plan(pieces: [.line([first, last])], obstacles: []).0
        Self.expectOnNetwork(line)
        #expect(line.lengthMetres >= first.metres(to: last) - 1)
    }

    @Test("every problem at once: an incompatible and an unknown street, a bad line, an obstacle with a bad point")
    func everyProblem() throws {
        let stairs = try Self.street("Piaristenstiege")
        let fields = Self.fields {
            _ = try Self.planner.plan(pieces: [.street(id: stairs.street.id, from: nil, to: nil), .street(id: 1, from: nil, to: nil),
                                               .line([RoadPoint(latitude: .nan, longitude: 15.6)])],
                                      obstacles: [DraftObstacleRequest(type: .glass, point: RoadPoint(latitude: 91, longitude: 0))])
        }
        #expect(fields == ["pieces[0].streetId": "incompatible-street", "pieces[1].streetId": "unknown-street", "pieces[2].line": "too-few",
                           "pieces[2].line[0]": "out-of-range", "obstacles[0].point": "out-of-range"])
    }

    @Test("an obstacle 3 km from the path is off it; 10,000 pieces are refused before any is resolved")
    func offPathAndTooMany() throws {
        let hafen = try Self.street("Hafenstraße")
        let piece = DraftPieceRequest.street(id: hafen.street.id, from: nil, to: nil)
        let far = RoadPoint(latitude: hafen.street.north + 0.027, longitude: hafen.street.east)
        #expect(Self.fields { _ = try Self.planner.plan(pieces: [piece], obstacles: [DraftObstacleRequest(type: .barrier, point: far)]) }
                == ["obstacles[0].point": "off-path"])
        #expect(Self.fields { _ = try Self.planner.plan(pieces: Array(repeating: piece, count: 10_000), obstacles: []) } == ["pieces": "too-many"])
        // Refused before any piece is resolved: 10,000 unknown streets give the count alone, not one "unknown-street".
        let unknown = DraftPieceRequest.street(id: 1, from: nil, to: nil)
        #expect(Self.fields { _ = try Self.planner.plan(pieces: Array(repeating: unknown, count: 10_000), obstacles: []) } == ["pieces": "too-many"])
        #expect(Self.fields { _ = try Self.planner.plan(pieces: [], obstacles: []) } == ["pieces": "too-few"])
    }

    @Test("a street on a part of the network that does not connect cannot be joined")
    func unjoinable() throws {
        let graph = Self.roads.network.graph
        let (componentOfVertex, sizes) = graph.weakComponents()
        let main = Int32(sizes.indices.max { sizes[$0] < sizes[$1] }!)
        let hafen = try Self.street("Hafenstraße")
        let centre = RoadPoint(latitude: (hafen.street.south + hafen.street.north) / 2, longitude: (hafen.street.west + hafen.street.east) / 2)
        func distance(_ street: StreetIndex.Street) -> Double {
            RoadPoint(latitude: (street.south + street.north) / 2, longitude: (street.west + street.east) / 2).metres(to: centre)
        }
        // The nearest named, compatible street whose every edge lies off the largest weakly connected component.
        let island = try #require(Self.roads.streets.index.streets.filter { street in
            street.edges.allSatisfy { componentOfVertex[Int(graph.edgeSources[$0])] != main }
                && Self.roads.streets.street(id: street.id)!.compatibility.compatible
        }.min { distance($0) < distance($1) }, "Krems has a named street off the main network")
        try #require(distance(island) < PathDraftPlanner.maximumGap - 1_000, "\(island.name) lies \(distance(island)) m away")
        let fields = Self.fields {
            _ = try Self.planner.plan(pieces: [.street(id: hafen.street.id, from: nil, to: nil), .street(id: island.id, from: nil, to: nil)], obstacles: [])
        }
        #expect(fields == ["pieces[1]": "gap-not-joinable"], "\(island.name): \(fields)")
    }
}

@Suite("path-review: pieces from two cities")
struct PathDraftTwoCitiesTests {
    @Test("a draft with a street in Krems and one in Monaco is refused: the pieces lie in two places")
    func twoCities() throws {
        let extracts = try ["krems.osm.gz", "monaco.osm.gz"].map { try ReferenceDataDirectory.file($0).path }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-path-review-tests-two-cities").path
        let roads = PathReviewRoads(network: try RoadNetworkLoader.load(extracts: extracts, cacheDirectory: cache))
        let hafen = try #require(roads.streets.search("Hafenstraße", offset: 0, limit: 5).entries.first)
        let monaco = try #require(roads.streets.near(latitude: 43.7384, longitude: 7.4246, radius: 500, offset: 0, limit: 20).entries
            .first { $0.compatibility.compatible })
        let fields = PathDraftPlannerTests.fields {
            _ = try PathDraftPlanner(roads: roads).plan(pieces: [.street(id: hafen.street.id, from: nil, to: nil),
                                                                 .street(id: monaco.street.id, from: nil, to: nil)], obstacles: [])
        }
        #expect(fields == ["pieces[1]": "too-far-apart"])
    }
}
