import Foundation
import EventSourcing
import Messaging
import PostgresNIO

/// ``SQLiteCommunityHandler`` on PostgreSQL.
public struct PostgresCommunityHandler: PostgresEventHandler {
    public var name: String { CommunityTables.consumer }

    public init() {}

    public func createTables(_ connection: PostgresConnection) async throws {
        for statement: PostgresQuery in [
            "CREATE TABLE IF NOT EXISTS community_paths (path_id uuid PRIMARY KEY, name text NOT NULL, nodes text NOT NULL, condition text NOT NULL)",
            """
            CREATE TABLE IF NOT EXISTS community_obstacles (obstacle_id uuid PRIMARY KEY, path_id uuid NOT NULL, nodes text NOT NULL,
                latitude double precision NOT NULL, longitude double precision NOT NULL, type text NOT NULL, confidence double precision NOT NULL)
            """,
            "CREATE TABLE IF NOT EXISTS community_streets (street_id bigint PRIMARY KEY, nodes text NOT NULL)",
            "CREATE TABLE IF NOT EXISTS community_version (id int PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)",
            "INSERT INTO community_version (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING",
        ] {
            try await connection.query(statement, logger: connection.logger)
        }
    }

    public func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws {
        guard let change = try CommunityChange.of(event) else { return }
        let logger = connection.logger
        switch change {
        case .approve(let path):
            let nodes = CommunityChange.text(path.nodes)
            try await connection.query("""
                INSERT INTO community_paths (path_id, name, nodes, condition) VALUES (\(path.id), \(path.name), \(nodes), \(path.condition))
                ON CONFLICT (path_id) DO UPDATE SET name = excluded.name, nodes = excluded.nodes, condition = excluded.condition
                """, logger: logger)
        case .condition(let path, let condition):
            try await connection.query("UPDATE community_paths SET condition = \(condition) WHERE path_id = \(path)", logger: logger)
        case .retire(let path):
            try await connection.query("DELETE FROM community_paths WHERE path_id = \(path)", logger: logger)
            try await connection.query("DELETE FROM community_obstacles WHERE path_id = \(path)", logger: logger)
        case .confirm(let obstacle):
            let nodes = CommunityChange.text(obstacle.nodes)
            try await connection.query("""
                INSERT INTO community_obstacles (obstacle_id, path_id, nodes, latitude, longitude, type, confidence)
                VALUES (\(obstacle.id), \(obstacle.pathId), \(nodes), \(obstacle.latitude), \(obstacle.longitude), \(obstacle.type), \(obstacle.confidence))
                ON CONFLICT (obstacle_id) DO UPDATE SET path_id = excluded.path_id, nodes = excluded.nodes, latitude = excluded.latitude,
                    longitude = excluded.longitude, type = excluded.type, confidence = excluded.confidence
                """, logger: logger)
        case .resolve(let obstacle):
            try await connection.query("DELETE FROM community_obstacles WHERE obstacle_id = \(obstacle)", logger: logger)
        case .mark(let street):
            let nodes = CommunityChange.text(street.nodes)
            try await connection.query("""
                INSERT INTO community_streets (street_id, nodes) VALUES (\(street.id), \(nodes)) ON CONFLICT (street_id) DO UPDATE SET nodes = excluded.nodes
                """, logger: logger)
        case .lift(let street):
            try await connection.query("DELETE FROM community_streets WHERE street_id = \(street)", logger: logger)
        }
        try await connection.query("UPDATE community_version SET version = version + 1 WHERE id = 1", logger: logger)
    }
}

/// ``CommunityStore`` on PostgreSQL.
public struct PostgresCommunityStore: CommunityStore {
    let database: PostgresServiceDatabase

    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func version() async throws -> Int64 {
        guard try await database.tableExists("community_version") else { return 0 }
        for try await version in try await database.client.query("SELECT version FROM community_version WHERE id = 1", logger: database.logger)
            .decode(Int64.self) {
            return version
        }
        return 0
    }

    public func records() async throws -> CommunityRecords {
        guard try await database.tableExists("community_version") else { return CommunityRecords() }
        let client = database.client, logger = database.logger
        var records = CommunityRecords()
        for try await (id, name, nodes, condition) in try await client.query(
            "SELECT path_id, name, nodes, condition FROM community_paths ORDER BY path_id", logger: logger)
            .decode((UUID, String, String, String).self) {
            records.paths.append(.init(id: id, name: name, nodes: try CommunityChange.nodes(nodes, as: [Int64].self), condition: condition))
        }
        for try await (id, path, nodes, latitude, longitude, type, confidence) in try await client.query(
            "SELECT obstacle_id, path_id, nodes, latitude, longitude, type, confidence FROM community_obstacles ORDER BY obstacle_id", logger: logger)
            .decode((UUID, UUID, String, Double, Double, String, Double).self) {
            records.obstacles.append(.init(id: id, pathId: path, nodes: try CommunityChange.nodes(nodes, as: [Int64].self), latitude: latitude,
                                           longitude: longitude, type: type, confidence: confidence))
        }
        for try await (id, nodes) in try await client.query("SELECT street_id, nodes FROM community_streets ORDER BY street_id", logger: logger)
            .decode((Int64, String).self) {
            records.streets.append(.init(id: id, nodes: try CommunityChange.nodes(nodes, as: [[Int64]].self)))
        }
        return records
    }
}
