import Foundation
import Logging
import PostgresNIO
import ServiceTesting
import Testing
@testable import RoadNetwork

/// The independent oracle for our shortest paths: pgRouting's `pgr_dijkstraCost` on the exported edge table
/// (``PGRoutingEdgeTable``) in the test PostgreSQL that `scripts/test.sh` starts; skipped without one.
@Suite("pgRouting agrees with our best weights", .serialized, .enabled(if: TestBackend.enabled.contains(.postgres)))
struct PGRoutingOracleTests {
    /// Origins drawn at random per city, and destinations per origin: 50 × 10 = 500 pairs, 50 searches on each side.
    static let origins = 50, destinationsPerOrigin = 10

    @Test("Krems: 500 random pairs, the same weight (relative 1e-6) and the same pairs without a route")
    func krems() async throws {
        try await Self.check(OSMFixtures.krems)
    }

    @Test("Helsinki: 500 random pairs, the same weight (relative 1e-6) and the same pairs without a route")
    func helsinki() async throws {
        try await Self.check(OSMFixtures.helsinki)
    }

    static func check(_ extract: String) async throws {
        let graph = try RoadGraphBuilder().build([extract]).graph
        var generator = SystemRandomNumberGenerator()
        let pairs = randomPairs(graph, using: &generator)
        let theirs = try await pgRoutingCosts(graph: graph, pairs: pairs)
        var ours: [Int: [Double]] = [:]
        let search = ShortestPaths(graph: graph)
        var routed = 0, unrouted = 0, worst = 0.0
        for (origin, destination) in pairs {
            await Task.yield()  // see PGRoutingRouterTests: leave the cooperative pool's threads to other suites now and then
            if ours[origin] == nil { ours[origin] = search.weights(from: origin) }
            let weight = ours[origin]![destination]
            let key = PairKey(source: graph.vertexNodeIDs[origin], target: graph.vertexNodeIDs[destination])
            switch (weight.isFinite, theirs[key]) {
            case (false, nil):
                unrouted += 1
            case (true, let cost?):
                routed += 1
                let relative = abs(weight - cost) / max(abs(cost), 1e-9)
                worst = max(worst, relative)
                #expect(relative <= 1e-6, "\(key): ours \(weight), pgr_dijkstra \(cost)")
            case (true, nil):
                Issue.record("\(key): we route (weight \(weight)), pgr_dijkstra finds no route")
            case (false, let cost?):
                Issue.record("\(key): pgr_dijkstra routes (cost \(cost)), we find no route")
            }
        }
        print("pgRouting oracle, \((extract as NSString).lastPathComponent): \(pairs.count) pairs, \(routed) routed, \(unrouted) without "
            + "a route on both sides, worst relative difference \(worst)")
        #expect(pairs.count == origins * destinationsPerOrigin)
        #expect(routed + unrouted == pairs.count && routed > pairs.count / 2)
    }

    /// ``origins`` random origins and ``destinationsPerOrigin`` random other vertices for each (vertex indexes).
    static func randomPairs(_ graph: RoadGraph, using generator: inout some RandomNumberGenerator) -> [(Int, Int)] {
        (0..<origins).flatMap { _ in
            let origin = Int.random(in: 0..<graph.vertexCount, using: &generator)
            return (0..<destinationsPerOrigin).map { _ -> (Int, Int) in
                var destination = origin
                while destination == origin { destination = Int.random(in: 0..<graph.vertexCount, using: &generator) }
                return (origin, destination)
            }
        }
    }

    struct PairKey: Hashable, CustomStringConvertible {
        var source: Int64, target: Int64
        var description: String { "OSM node \(source) → \(target)" }
    }

    /// `pgr_dijkstraCost` for every pair (vertex indexes of `graph`), keyed by OSM node ids; pairs without a route are
    /// absent, as pgRouting returns them.
    static func pgRoutingCosts(graph: RoadGraph, pairs: [(Int, Int)]) async throws -> [PairKey: Double] {
        let logger = Logger(label: "pgrouting-oracle")
        let connection = try await PostgresConnection.connect(configuration: try configuration(), id: 1, logger: logger)
        let schema = TestBackend.freshSchema("roads")
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE EXTENSION IF NOT EXISTS pgrouting"), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(schema), public"), logger: logger)
            for statement in try PGRoutingEdgeTable(graph: graph).sqlStatements(table: "edges") {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            let values = pairs.map { "(\(graph.vertexNodeIDs[$0.0]),\(graph.vertexNodeIDs[$0.1]))" }.joined(separator: ",")
            let sql = """
                SELECT start_vid, end_vid, agg_cost FROM pgr_dijkstraCost(
                  'SELECT id, source, target, cost, reverse_cost FROM edges',
                  'SELECT source, target FROM (VALUES \(values)) AS pairs(source, target)', true)
                """
            var costs: [PairKey: Double] = [:]
            for try await (source, target, cost) in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                .decode((Int64, Int64, Double).self) {
                costs[PairKey(source: source, target: target)] = cost
            }
            try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: logger)
            try await connection.close()
            return costs
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The test server from `WAYPOINT_TEST_POSTGRES_URL` (`postgres://user:password@host:port/database`).
    static func configuration() throws -> PostgresConnection.Configuration {
        guard let url = URLComponents(string: try TestBackend.postgresURL), let host = url.host, let user = url.user else {
            throw TestSetupError("WAYPOINT_TEST_POSTGRES_URL is not a postgres:// URL")
        }
        return PostgresConnection.Configuration(host: host, port: url.port ?? 5432, username: user, password: url.password,
                                                database: String(url.path.dropFirst()), tls: .disable)
    }
}
