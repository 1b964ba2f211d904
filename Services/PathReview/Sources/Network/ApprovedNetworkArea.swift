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

// ``ApprovedNetworkReads/boxes()`` and ``ApprovedNetworkReads/features(of:zoom:)`` on both stores: every path's exact
// box for ``ApprovedBoxIndex``, and a chosen page's pre-rendered fragments (``ApprovedFeatureBands``) by key.

extension SQLiteApprovedNetworkStore {
    public func boxes() async throws -> [ApprovedBoxIndex.Entry] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT box_id, path_id, west, south, east, north FROM approved_paths").compactMap { row in
                guard let id = UUID(uuidString: row[1]) else { return nil }
                return ApprovedBoxIndex.Entry(id: id, key: row[0], west: row[2], south: row[3], east: row[4], north: row[5])
            }
        }
    }

    public func features(of page: [ApprovedBoxIndex.Entry], zoom: Int?) async throws -> [ApprovedFeatureRow] {
        guard !page.isEmpty else { return [] }
        let table = ApprovedFeatureBands.table(zoom: zoom)
        let keys = "[" + page.map { String($0.key) }.joined(separator: ",") + "]"
        let byKey = try await database.read { db -> [Int64: ApprovedFeatureRow] in
            // One statement text for any page (the keys as one JSON array): prepared once, cached by the connection.
            var byKey: [Int64: ApprovedFeatureRow] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT p.box_id, f.fragment, p.condition, p.obstacles FROM approved_paths p JOIN \(table) f ON f.box_id = p.box_id
                WHERE p.box_id IN (SELECT value FROM json_each(?))
                """, arguments: [keys]) {
                byKey[row[0]] = ApprovedFeatureRow(fragment: row[1], condition: row[2], obstacleCount: row[3])
            }
            return byKey
        }
        return page.compactMap { byKey[$0.key] }
    }
}

extension PostgresApprovedNetworkStore {
    public func boxes() async throws -> [ApprovedBoxIndex.Entry] {
        var entries: [ApprovedBoxIndex.Entry] = []
        let query: PostgresQuery = "SELECT path_id, ST_XMin(box), ST_YMin(box), ST_XMax(box), ST_YMax(box) FROM approved_path_boxes"
        for try await (id, west, south, east, north) in try await database.client.query(query, logger: database.logger)
            .decode((UUID, Double, Double, Double, Double).self) {
            entries.append(ApprovedBoxIndex.Entry(id: id, key: 0, west: west, south: south, east: east, north: north))
        }
        return entries
    }

    public func features(of page: [ApprovedBoxIndex.Entry], zoom: Int?) async throws -> [ApprovedFeatureRow] {
        guard !page.isEmpty else { return [] }
        let table = ApprovedFeatureBands.table(zoom: zoom)
        let ids = page.map(\.id)
        // The page drives the join (`unnest`: a few hundred primary-key probes); `= ANY(…)` let the planner hash-join
        // over full scans of the band's table.
        let query: PostgresQuery = """
            SELECT p.path_id, f.fragment, p.condition, p.obstacles FROM unnest(\(ids)::uuid[]) AS page(id)
            JOIN approved_paths p ON p.path_id = page.id JOIN \(unescaped: table) f ON f.path_id = page.id
            """
        var byId: [UUID: ApprovedFeatureRow] = [:]
        for try await (id, fragment, condition, count) in try await database.client.query(query, logger: database.logger)
            .decode((UUID, String, String, Int32).self) {
            byId[id] = ApprovedFeatureRow(fragment: fragment, condition: condition, obstacleCount: Int(count))
        }
        return page.compactMap { byId[$0.id] }
    }
}
