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
        let table = ApprovedFeatureBands.table(zoom: zoom)
        return try await database.read { db in
            // The page is chosen on the R*Tree alone — its keys are ordered as the path ids are
            // (``SQLiteApprovedNetworkProjection/boxKey(_:)``) — then only its rows are read: a city box meets thousands
            // of paths, and looking each up in the wide tables read pages of text.
            try Row.fetchAll(db, sql: """
                SELECT f.fragment, p.condition, p.obstacles
                FROM (SELECT box_id FROM approved_path_boxes WHERE east >= ? AND west <= ? AND north >= ? AND south <= ?
                      ORDER BY box_id LIMIT ?) AS page
                JOIN approved_paths p ON p.box_id = page.box_id JOIN \(table) f ON f.box_id = page.box_id
                ORDER BY page.box_id
                """, arguments: [box.west, box.east, box.south, box.north, max(limit, 0)])
                .map { ApprovedFeatureRow(fragment: $0[0], condition: $0[1], obstacleCount: $0[2]) }
        }
    }
}

extension PostgresApprovedNetworkStore {
    public func features(in box: ApprovedNetworkBox, zoom: Int?, limit: Int) async throws -> [ApprovedFeatureRow] {
        let table = ApprovedFeatureBands.table(zoom: zoom)
        // uuid order is the order of the lowercase text SQLite sorts by (bytes compare as their hex digits do).
        let query: PostgresQuery = """
            SELECT f.fragment, p.condition, p.obstacles
            FROM (SELECT path_id FROM approved_path_boxes WHERE box && ST_MakeEnvelope(\(box.west), \(box.south), \(box.east), \(box.north), 4326)
                  ORDER BY path_id LIMIT \(max(limit, 0))) AS page
            JOIN approved_paths p ON p.path_id = page.path_id JOIN \(unescaped: table) f ON f.path_id = page.path_id
            ORDER BY page.path_id
            """
        var found: [ApprovedFeatureRow] = []
        for try await (fragment, condition, count) in try await database.client.query(query, logger: database.logger).decode((String, String, Int32).self) {
            found.append(ApprovedFeatureRow(fragment: fragment, condition: condition, obstacleCount: Int(count)))
        }
        return found
    }
}
