import Foundation
import GRDB
import EventSourcing
import Messaging

/// The `waypoint.paths` consumer on SQLite: the community tables, changed in the consumer's transaction, and a change
/// counter every instance polls (``CommunityOverlay``).
public struct SQLiteCommunityHandler: SQLiteEventHandler {
    public var name: String { CommunityTables.consumer }

    public init() {}

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS community_paths (path_id TEXT PRIMARY KEY, name TEXT NOT NULL, nodes TEXT NOT NULL, condition TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS community_obstacles (obstacle_id TEXT PRIMARY KEY, path_id TEXT NOT NULL, nodes TEXT NOT NULL,
                latitude REAL NOT NULL, longitude REAL NOT NULL, type TEXT NOT NULL, confidence REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS community_streets (street_id INTEGER PRIMARY KEY, nodes TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS community_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
            INSERT OR IGNORE INTO community_version (id, version) VALUES (1, 0);
            """)
    }

    public func handle(_ event: PublishedEvent, _ db: Database) throws {
        guard let change = try CommunityChange.of(event) else { return }
        switch change {
        case .approve(let path):
            try db.execute(sql: """
                INSERT INTO community_paths (path_id, name, nodes, condition) VALUES (?, ?, ?, ?)
                ON CONFLICT (path_id) DO UPDATE SET name = excluded.name, nodes = excluded.nodes, condition = excluded.condition
                """, arguments: [Self.key(path.id), path.name, CommunityChange.text(path.nodes), path.condition])
        case .condition(let path, let condition):
            try db.execute(sql: "UPDATE community_paths SET condition = ? WHERE path_id = ?", arguments: [condition, Self.key(path)])
        case .retire(let path):
            try db.execute(sql: "DELETE FROM community_paths WHERE path_id = ?", arguments: [Self.key(path)])
            try db.execute(sql: "DELETE FROM community_obstacles WHERE path_id = ?", arguments: [Self.key(path)])
        case .confirm(let obstacle):
            try db.execute(sql: """
                INSERT INTO community_obstacles (obstacle_id, path_id, nodes, latitude, longitude, type, confidence) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (obstacle_id) DO UPDATE SET path_id = excluded.path_id, nodes = excluded.nodes, latitude = excluded.latitude,
                    longitude = excluded.longitude, type = excluded.type, confidence = excluded.confidence
                """, arguments: [Self.key(obstacle.id), Self.key(obstacle.pathId), CommunityChange.text(obstacle.nodes), obstacle.latitude,
                                 obstacle.longitude, obstacle.type, obstacle.confidence])
        case .resolve(let obstacle):
            try db.execute(sql: "DELETE FROM community_obstacles WHERE obstacle_id = ?", arguments: [Self.key(obstacle)])
        case .mark(let street):
            try db.execute(sql: "INSERT INTO community_streets (street_id, nodes) VALUES (?, ?) ON CONFLICT (street_id) DO UPDATE SET nodes = excluded.nodes",
                           arguments: [street.id, CommunityChange.text(street.nodes)])
        case .lift(let street):
            try db.execute(sql: "DELETE FROM community_streets WHERE street_id = ?", arguments: [street])
        }
        try db.execute(sql: "UPDATE community_version SET version = version + 1 WHERE id = 1")
    }

    static func key(_ id: UUID) -> String { id.uuidString.lowercased() }
}

/// ``CommunityStore`` on SQLite.
public struct SQLiteCommunityStore: CommunityStore {
    let database: SQLiteServiceDatabase

    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func version() async throws -> Int64 {
        try await database.read { db in
            guard try db.tableExists("community_version") else { return 0 }
            return try Int64.fetchOne(db, sql: "SELECT version FROM community_version WHERE id = 1") ?? 0
        }
    }

    public func records() async throws -> CommunityRecords {
        try await database.read { db in
            guard try db.tableExists("community_version") else { return CommunityRecords() }
            var records = CommunityRecords()
            for row in try Row.fetchAll(db, sql: "SELECT path_id, name, nodes, condition FROM community_paths ORDER BY path_id") {
                guard let id = UUID(uuidString: row[0]) else { continue }
                records.paths.append(.init(id: id, name: row[1], nodes: try CommunityChange.nodes(row[2], as: [Int64].self), condition: row[3]))
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT obstacle_id, path_id, nodes, latitude, longitude, type, confidence FROM community_obstacles ORDER BY obstacle_id
                """) {
                guard let id = UUID(uuidString: row[0]), let path = UUID(uuidString: row[1]) else { continue }
                records.obstacles.append(.init(id: id, pathId: path, nodes: try CommunityChange.nodes(row[2], as: [Int64].self),
                                               latitude: row[3], longitude: row[4], type: row[5], confidence: row[6]))
            }
            for row in try Row.fetchAll(db, sql: "SELECT street_id, nodes FROM community_streets ORDER BY street_id") {
                records.streets.append(.init(id: row[0], nodes: try CommunityChange.nodes(row[1], as: [[Int64]].self)))
            }
            return records
        }
    }
}
