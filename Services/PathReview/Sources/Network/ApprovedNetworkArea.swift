import Contracts
import EventSourcing
import Foundation
import GRDB
import NIOCore
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

// ``ApprovedNetworkReads/boxes()``, ``ApprovedNetworkReads/features(of:zoom:)`` and ``ApprovedNetworkReads/states(of:)``
// on both stores: every path's exact box for ``ApprovedBoxIndex``, and a chosen page's pre-rendered fragments
// (``ApprovedFeatureBands``) with their paths' current states, or the states alone, by key.

extension SQLiteApprovedNetworkStore {
    public func boxes() async throws -> [ApprovedBoxIndex.Entry] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT box_id, path_id, west, south, east, north FROM approved_paths").compactMap { row in
                guard let id = UUID(uuidString: row[1]) else { return nil }
                return ApprovedBoxIndex.Entry(id: id, key: row[0], west: row[2], south: row[3], east: row[4], north: row[5])
            }
        }
    }

    public func features(of page: [ApprovedBoxIndex.Entry], zoom: Int?) async throws -> [ApprovedFeatureRow?] {
        guard !page.isEmpty else { return [] }
        let table = ApprovedFeatureBands.table(zoom: zoom)
        let byKey = try await database.read { db -> [Int64: ApprovedFeatureRow] in
            // One statement text per band for any page (the keys as one JSON array): prepared once, cached by the
            // connection (`cachedStatement`; `fetchAll(db, sql:)` would parse it on every request).
            var byKey: [Int64: ApprovedFeatureRow] = [:]
            for row in try Row.fetchAll(db.cachedStatement(sql: """
                SELECT p.box_id, f.fragment, p.condition, p.obstacles FROM approved_paths p JOIN \(table) f ON f.box_id = p.box_id
                WHERE p.box_id IN (SELECT value FROM json_each(?))
                """), arguments: [Self.keys(page)]) {
                byKey[row[0]] = ApprovedFeatureRow(fragment: row[1] as String, condition: row[2], obstacleCount: row[3])
            }
            return byKey
        }
        return page.map { byKey[$0.key] }
    }

    public func states(of page: [ApprovedBoxIndex.Entry]) async throws -> [ApprovedPathState?] {
        guard !page.isEmpty else { return [] }
        let byKey = try await database.read { db -> [Int64: ApprovedPathState] in
            var byKey: [Int64: ApprovedPathState] = [:]
            for row in try Row.fetchAll(db.cachedStatement(sql: """
                SELECT box_id, condition, obstacles FROM approved_paths WHERE box_id IN (SELECT value FROM json_each(?))
                """), arguments: [Self.keys(page)]) {
                byKey[row[0]] = ApprovedPathState(condition: row[1], obstacleCount: row[2])
            }
            return byKey
        }
        return page.map { byKey[$0.key] }
    }

    /// The page's row keys as one JSON array.
    private static func keys(_ page: [ApprovedBoxIndex.Entry]) -> String {
        "[" + page.map { String($0.key) }.joined(separator: ",") + "]"
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

    public func features(of page: [ApprovedBoxIndex.Entry], zoom: Int?) async throws -> [ApprovedFeatureRow?] {
        guard !page.isEmpty else { return [] }
        let table = ApprovedFeatureBands.table(zoom: zoom)
        let ids = page.map(\.id)
        // Two primary-key probes per page row, whatever the network's size: the `OFFSET 0` keeps each lateral subquery
        // a probe (without it the planner hashed all of `approved_paths` per request — 10,000 rows, ~1.4 ms, growing
        // with the network). The fragment arrives as the row's bytes (no `String` made and validated per feature) and
        // the ordinal puts it back in the page's order.
        let query: PostgresQuery = """
            SELECT page.n, f.fragment, p.condition, p.obstacles FROM unnest(\(ids)::uuid[]) WITH ORDINALITY AS page(id, n)
            CROSS JOIN LATERAL (SELECT condition, obstacles FROM approved_paths WHERE path_id = page.id OFFSET 0) p
            CROSS JOIN LATERAL (SELECT fragment FROM \(unescaped: table) WHERE path_id = page.id OFFSET 0) f
            """
        var found = [ApprovedFeatureRow?](repeating: nil, count: page.count)
        for try await (ordinal, fragment, condition, count) in try await database.client.query(query, logger: database.logger)
            .decode((Int64, ByteBuffer, String, Int32).self) {
            guard ordinal >= 1, ordinal <= Int64(page.count) else { continue }
            found[Int(ordinal) - 1] = ApprovedFeatureRow(fragment: fragment, condition: condition, obstacleCount: Int(count))
        }
        return found
    }

    public func states(of page: [ApprovedBoxIndex.Entry]) async throws -> [ApprovedPathState?] {
        guard !page.isEmpty else { return [] }
        let ids = page.map(\.id)
        // A key probe per page row, as ``features(of:zoom:)`` reads them; the answer is one row of three small arrays (a
        // row per path cost more in the client's decoding than the probes in the server), the ordinals placing each.
        let query: PostgresQuery = """
            SELECT array_agg(page.n), array_agg(p.condition), array_agg(p.obstacles)
            FROM unnest(\(ids)::uuid[]) WITH ORDINALITY AS page(id, n)
            CROSS JOIN LATERAL (SELECT condition, obstacles FROM approved_paths WHERE path_id = page.id OFFSET 0) p
            """
        var found = [ApprovedPathState?](repeating: nil, count: page.count)
        for try await (ordinals, conditions, counts) in try await database.client.query(query, logger: database.logger)
            .decode(([Int64]?, [String]?, [Int32]?).self) {
            guard let ordinals, let conditions, let counts, conditions.count == ordinals.count, counts.count == ordinals.count else { continue }
            for (index, ordinal) in ordinals.enumerated() where ordinal >= 1 && ordinal <= Int64(page.count) {
                found[Int(ordinal) - 1] = ApprovedPathState(condition: conditions[index], obstacleCount: Int(counts[index]))
            }
        }
        return found
    }
}
