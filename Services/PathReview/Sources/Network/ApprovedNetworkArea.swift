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

// ``ApprovedNetworkReads/features(in:zoom:limit:)`` on both stores: the ids by path id first (only the small columns
// are sorted), then the pre-rendered fragments of those (``ApprovedFeatureBands``).

extension SQLiteApprovedNetworkStore {
    public func features(in box: ApprovedNetworkBox, zoom: Int?, limit: Int) async throws -> [ApprovedFeatureRow] {
        let column = ApprovedFeatureBands.column(zoom: zoom)
        return try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(column), condition, obstacles FROM approved_paths WHERE box_id IN (
                    SELECT p.box_id FROM approved_path_boxes b JOIN approved_paths p ON p.box_id = b.box_id
                    WHERE b.east >= ? AND b.west <= ? AND b.north >= ? AND b.south <= ? ORDER BY p.path_id LIMIT ?)
                ORDER BY path_id
                """, arguments: [box.west, box.east, box.south, box.north, max(limit, 0)])
                .map { ApprovedFeatureRow(fragment: $0[0], condition: $0[1], obstacleCount: $0[2]) }
        }
    }
}

extension PostgresApprovedNetworkStore {
    public func features(in box: ApprovedNetworkBox, zoom: Int?, limit: Int) async throws -> [ApprovedFeatureRow] {
        let column = ApprovedFeatureBands.column(zoom: zoom)
        let query: PostgresQuery = """
            SELECT \(unescaped: column), condition, obstacles FROM approved_paths WHERE path_id IN (
                SELECT path_id FROM approved_paths WHERE geog::geometry && ST_MakeEnvelope(\(box.west), \(box.south), \(box.east), \(box.north), 4326)
                ORDER BY path_id::text LIMIT \(max(limit, 0)))
            ORDER BY path_id::text
            """
        var found: [ApprovedFeatureRow] = []
        for try await (fragment, condition, count) in try await database.client.query(query, logger: database.logger).decode((String, String, Int32).self) {
            found.append(ApprovedFeatureRow(fragment: fragment, condition: condition, obstacleCount: Int(count)))
        }
        return found
    }
}
