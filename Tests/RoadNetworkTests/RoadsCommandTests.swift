import ArgumentParser
import Foundation
import Geo
import Testing
@testable import RoadNetwork
@testable import WaypointCLI

@Suite("waypoint roads export, info and route")
struct RoadsCommandTests {
    /// The square fixture in a temporary file.
    static func squareFile() throws -> String {
        let path = OSMFixtures.temporaryPath(".osm")
        try RoadGraphTests.square.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func command<C: ParsableCommand>(_ arguments: [String], as _: C.Type) throws -> C {
        try #require(try Waypoint.parseAsRoot(arguments) as? C)
    }

    /// The message and exit code `waypoint` gives for `arguments`, which must fail (parsing or running).
    static func failure(_ arguments: [String]) -> (message: String, exitCode: Int32)? {
        do {
            var command = try Waypoint.parseAsRoot(arguments)
            try command.run()
            return nil
        } catch {
            return (Waypoint.fullMessage(for: error), Waypoint.exitCode(for: error).rawValue)
        }
    }

    @Test("the pgRouting export has a row per edge: weights as costs, -1 against a one-way, OSM ids and WKT")
    func pgRoutingExport() throws {
        let path = try Self.squareFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let graph = try RoadGraphBuilder().build([path]).graph
        let csv = try Self.command(["roads", "export", "--format", "pgrouting", path], as: RoadsExport.self).render()
        let lines = csv.split(separator: "\n").map(String.init)
        #expect(lines.first == PGRoutingEdgeTable.columns.joined(separator: ","))
        #expect(lines.count == graph.edgeCount + 1)
        let oneway = try #require((0..<graph.edgeCount).first { graph.ways[Int(graph.edgeWays[$0])].osmID == 12 })
        let row = lines[oneway + 1]
        #expect(row.hasPrefix("\(oneway + 1),3,4,\(graph.edgeForwardWeights[oneway]),-1,15.61,48.41,15.6,48.41,12,\"{3,4}\","))
        #expect(row.hasSuffix("\"LINESTRING(15.61 48.41,15.6 48.41)\""))

        let sql = try Self.command(["roads", "export", "--format", "pgrouting-sql", "--table", "square_edges", path], as: RoadsExport.self)
            .render()
        #expect(sql.contains("CREATE TABLE square_edges (id bigint PRIMARY KEY"))
        #expect(sql.contains("(\(oneway + 1), 3, 4, \(graph.edgeForwardWeights[oneway]), -1, "))
        let bad = Self.failure(["roads", "export", "--format", "pgrouting-sql", "--table", "x; DROP TABLE y", path])
        #expect(bad?.message.contains("invalid table name") == true && bad?.exitCode != 0)
    }

    @Test("the GeoJSON export is a FeatureCollection of every edge's LineString with its properties")
    func geoJSONExport() throws {
        let path = try Self.squareFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = OSMFixtures.temporaryPath(".geojson")
        defer { try? FileManager.default.removeItem(atPath: output) }
        try Self.command(["roads", "export", "--format", "geojson", "-o", output, path], as: RoadsExport.self).run()
        let collection = try JSONDecoder().decode(FeatureCollection.self, from: Data(contentsOf: URL(fileURLWithPath: output)))
        let graph = try RoadGraphBuilder().build([path]).graph
        #expect(collection.features.count == graph.edgeCount)
        let cycleway = try #require(collection.features.first { $0.properties?["osm_way_id"] == .number(14) })
        #expect(cycleway.properties?["highway"] == .string("cycleway") && cycleway.properties?["cycle_network"] == .bool(true))
        #expect(cycleway.properties?["osm_node_ids"] == .array([.number(1), .number(5), .number(3)]))
        guard case .lineString(let line)? = cycleway.geometry else { Issue.record("not a LineString"); return }
        #expect(line.coordinates.count == 3 && line.coordinates[1].longitude == 15.605)
    }

    @Test("info on Krems: the graph's counts, a bounding box around the town, components, profile version")
    func info() throws {
        let facts = try Self.command(["roads", "info", OSMFixtures.krems], as: RoadsInfo.self).facts()
        let (graph, report) = try RoadGraphBuilder().build([OSMFixtures.krems])
        #expect(facts.nodes == graph.vertexCount && facts.edges == graph.edgeCount && facts.usableWays == report.usableWays)
        #expect(facts.profileVersion == BikeProfile().version && facts.source == "imported")
        let box = try #require(facts.boundingBox)
        // The extract's <bounds> centre is inside; whole ways reach out of <bounds>, but not far.
        #expect(box.south < 48.40 && box.north > 48.40 && box.west < 15.635 && box.east > 15.635)
        #expect(box.north - box.south < 0.5 && box.east - box.west < 0.5)
        #expect(graph.vertexLatitudes.allSatisfy { (box.south...box.north).contains($0) })
        let components = graph.weakComponents()
        #expect(facts.components.count == components.sizes.count && facts.components.largestNodes > graph.vertexCount / 2)
        // Oracle for the components: every edge joins vertices of one component, and a BFS from vertex 0 covers its own.
        #expect((0..<graph.edgeCount).allSatisfy {
            components.componentOfVertex[Int(graph.edgeSources[$0])] == components.componentOfVertex[Int(graph.edgeTargets[$0])]
        })
        #expect(Self.reachableIgnoringDirection(from: 0, in: graph) == components.sizes[0])
        // The strong pieces agree with the weak ones: each lies inside one weak part, so there are at least as many, and
        // Krems' one main piece lies in the largest weak part (breadth-first oracle: MainNetworkOracle).
        let strong = facts.strongComponents, oracle = MainNetworkOracle(graph: graph)
        #expect(strong.count >= facts.components.count && strong.mainNodes == oracle.main.count)
        #expect(strong.mainNodes <= facts.components.largestNodes && strong.mainNodes > graph.vertexCount / 2)
        #expect(strong.nodesNotReachingMain == oracle.ridesToMain.filter { !$0 }.count)
        #expect(strong.nodesNotReachedFromMain == oracle.reachedFromMain.filter { !$0 }.count)
    }

    static func reachableIgnoringDirection(from start: Int, in graph: RoadGraph) -> Int {
        var neighbours = [[Int]](repeating: [], count: graph.vertexCount)
        for edge in 0..<graph.edgeCount {
            neighbours[Int(graph.edgeSources[edge])].append(Int(graph.edgeTargets[edge]))
            neighbours[Int(graph.edgeTargets[edge])].append(Int(graph.edgeSources[edge]))
        }
        var seen: Set = [start], queue = [start]
        while let vertex = queue.popLast() {
            for next in neighbours[vertex] where seen.insert(next).inserted { queue.append(next) }
        }
        return seen.count
    }

    @Test("route: the router's best path from point to point, through via points, with alternatives; disconnected points have no route")
    func route() throws {
        let path = try Self.squareFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let graph = try RoadGraphBuilder().build([path]).graph
        // From node 1 to node 3 exactly: the route is the vertex-to-vertex best path (the cycleway 1 → 5 → 3).
        let command = try Self.command(["roads", "route", "--from", "48.4,15.6", "--to", "48.41,15.61", path], as: RoadsRoute.self)
        let answer = try command.route(on: graph)
        let route = try #require(answer.routes.first)
        let vertex = { (id: Int64) in try #require(graph.vertexNodeIDs.firstIndex(of: id)) }
        let best = try #require(ShortestPaths(graph: graph).path(from: try vertex(1), to: try vertex(3)))
        #expect(abs(route.weight - best.weight) <= 1e-9 * best.weight && abs(route.distance - best.length) <= 1e-6)
        let travelled = route.edges.filter { $0.osmNodeIds.count > 1 }
        #expect(travelled.map(\.osmWayId) == [14] && travelled.first?.osmNodeIds == [1, 5, 3])
        #expect(route.geometry?.coordinates.first?.latitude == 48.4 && route.geometry?.coordinates.last?.latitude == 48.41)
        // Part-way: a point just beside node 1 starts on the snapped edge, not at the vertex.
        let beside = try Self.command(["roads", "route", "--from", "48.4001,15.6001", "--to", "48.41,15.61", path], as: RoadsRoute.self)
            .route(on: graph)
        #expect((beside.routes.first?.weight ?? 0) < best.weight)

        let via = try Self.command(["roads", "route", "--from", "48.4,15.6", "--via", "48.4,15.61", "--to", "48.41,15.61", path],
                                   as: RoadsRoute.self).route(on: graph)
        #expect(via.routes.count == 1)
        #expect(via.routes.first?.edges.filter { $0.osmNodeIds.count > 1 }.map(\.osmWayId) == [10, 11])
        let alternatives = try Self.command(["roads", "route", "--from", "48.4,15.6", "--to", "48.41,15.61", "--alternatives", "2", path],
                                            as: RoadsRoute.self).route(on: graph)
        #expect(alternatives.routes.first?.weight == route.weight)
        #expect((1...3).contains(alternatives.routes.count))
        #expect(alternatives.routes.dropFirst().allSatisfy { $0.weight >= route.weight })
        let apart = try Self.command(["roads", "route", "--from", "48.4,15.6", "--to", "48.5,15.705", path], as: RoadsRoute.self)
            .route(on: graph)
        #expect(apart.routes.isEmpty && apart.noRoute != nil)
        let json = try command.render()
        #expect(json.contains("\"attribution\":\"Map data © OpenStreetMap contributors, ODbL 1.0\""))
    }

    @Test("--cache-dir: the first command imports and writes the cache, the next one loads it")
    func cacheDirectory() throws {
        let path = try Self.squareFile()
        let cache = OSMFixtures.temporaryPath("-cache")
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: cache)
        }
        let first = try Self.command(["roads", "info", "--cache-dir", cache, path], as: RoadsInfo.self).facts()
        let second = try Self.command(["roads", "info", path, "--cache-dir", cache], as: RoadsInfo.self).facts()
        #expect(first.source == "imported (no cache file)" && second.source == "cache")
        #expect(first.edges == second.edges && first.nodes == second.nodes && first.boundingBox == second.boundingBox)
    }

    @Test("bad input is a clear message and a non-zero exit, never a crash")
    func badInput() throws {
        let path = try Self.squareFile()
        let empty = OSMFixtures.temporaryPath(".osm")
        try Data().write(to: URL(fileURLWithPath: empty))
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: empty)
        }
        let cases: [([String], String)] = [
            (["roads", "info", "/no/such/extract.osm.pbf"], "/no/such/extract.osm.pbf: cannot be read"),
            (["roads", "info", empty], "the file is empty"),
            (["roads", "info"], "extract"),
            (["roads", "export", "--format", "shapefile", path], "shapefile"),
            (["roads", "route", "--from", "91,15.6", "--to", "48.41,15.61", path], "91,15.6"),
            (["roads", "route", "--from", "nan,15.6", "--to", "48.41,15.61", path], "nan,15.6"),
            (["roads", "route", "--from", "48.4;15.6", "--to", "48.41,15.61", path], "48.4;15.6"),
            (["roads", "route", "--from", "48.4,15.6", "--to", "43.0,7.0", path], "no street within 500.0 m of --to 43.0,7.0"),
            (["roads", "route", "--from", "48.4,15.6", "--to", "48.41,15.61", "--alternatives", "7", path], "--alternatives"),
            (["roads", "route", "--from", "48.4,15.6", "--to", "48.41,15.61", path] + Array(repeating: ["--via", "48.4,15.6"], count: 26).flatMap { $0 },
             "at most 25 --via points"),
        ]
        for (arguments, expected) in cases {
            let failure = try #require(Self.failure(arguments), "\(arguments) succeeded")
            #expect(failure.exitCode != 0, "\(arguments)")
            #expect(failure.message.contains(expected), "\(arguments): \(failure.message)")
        }
    }
}
