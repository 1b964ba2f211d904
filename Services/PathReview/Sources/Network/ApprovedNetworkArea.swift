import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO
import ServiceKit

/// One approved path as an area listing shows it: the approval, its current condition and how many obstacles are open.
public struct ApprovedPathSummary: Sendable, Hashable {
    public var approved: PathApproved
    public var condition: String
    public var obstacleCount: Int
}

/// A box in WGS 84 degrees, west ≤ east and south ≤ north (a box across the antimeridian is two requests).
public struct ApprovedNetworkBox: Sendable, Hashable {
    public var west: Double, south: Double, east: Double, north: Double
}

// ``ApprovedNetworkReads/paths(in:limit:)`` on both stores.

extension SQLiteApprovedNetworkStore {
    public func paths(in box: ApprovedNetworkBox, limit: Int) async throws -> [ApprovedPathSummary] {
        let rows = try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT p.approved, p.condition, (SELECT COUNT(*) FROM approved_path_obstacles o WHERE o.path_id = p.path_id)
                FROM approved_path_boxes b JOIN approved_paths p ON p.box_id = b.box_id
                WHERE b.east >= ? AND b.west <= ? AND b.north >= ? AND b.south <= ? ORDER BY p.path_id LIMIT ?
                """, arguments: [box.west, box.east, box.south, box.north, max(limit, 0)]).map { row -> (String, String, Int) in (row[0], row[1], row[2]) }
        }
        return try rows.map(ApprovedNetworkFold.summary)
    }
}

extension PostgresApprovedNetworkStore {
    public func paths(in box: ApprovedNetworkBox, limit: Int) async throws -> [ApprovedPathSummary] {
        let query: PostgresQuery = """
            SELECT p.approved, p.condition, (SELECT count(*) FROM approved_path_obstacles o WHERE o.path_id = p.path_id)
            FROM approved_paths p WHERE p.geog::geometry && ST_MakeEnvelope(\(box.west), \(box.south), \(box.east), \(box.north), 4326)
            ORDER BY p.path_id::text LIMIT \(max(limit, 0))
            """
        var found: [ApprovedPathSummary] = []
        for try await (approved, condition, count) in try await database.client.query(query, logger: database.logger).decode((String, String, Int64).self) {
            found.append(try ApprovedNetworkFold.summary((approved, condition, Int(count))))
        }
        return found
    }
}

extension ApprovedNetworkFold {
    static func summary(_ stored: (String, String, Int)) throws -> ApprovedPathSummary {
        ApprovedPathSummary(approved: try EventJSON.decode(PathApproved.self, from: Data(stored.0.utf8)), condition: stored.1, obstacleCount: stored.2)
    }
}
