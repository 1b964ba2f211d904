import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// What street listings and drafts ask of the `approved_paths` read model about streets: which are marked incompatible
/// by a moderator, and which of a set of node pairs lie on approved, not retired paths. Both stores, one conformance
/// suite.
public protocol StreetOverlayReads: Sendable {
    /// Of `ids`, the streets marked incompatible now.
    func markedStreets(_ ids: [Int64]) async throws -> Set<Int64>
    /// Of `pairs` (`[min, max]` OSM node ids), those that are a segment of an approved path.
    func coveredSegments(_ pairs: [[Int64]]) async throws -> Set<[Int64]>
    /// The log position of the last event that changed the two answers above (an approval, a retirement, a street's
    /// mark; 0 before any): equal positions, equal answers — what ``StreetOverlayCache`` keys its copy on.
    func overlayVersion() async throws -> Int64
}

/// Pairs are asked in chunks: SQLite binds at most 32,766 values a statement, and smaller statements plan faster.
enum StreetOverlayChunks {
    static let size = 400
}

extension SQLiteApprovedNetworkStore: StreetOverlayReads {
    public func overlayVersion() async throws -> Int64 {
        // Every bbox page reads it: a statement prepared once per connection (GRDB's cache), not parsed per request.
        try await database.read { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT position FROM approved_network_version WHERE id = 1")) ?? 0
        }
    }

    public func markedStreets(_ ids: [Int64]) async throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return try await database.read { db in
            var marked = Set<Int64>()
            for chunk in stride(from: 0, to: ids.count, by: StreetOverlayChunks.size).map({ Array(ids[$0..<min($0 + StreetOverlayChunks.size, ids.count)]) }) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                marked.formUnion(try Int64.fetchAll(db, sql: "SELECT street_id FROM street_marks WHERE street_id IN (\(marks))",
                                                    arguments: StatementArguments(chunk)))
            }
            return marked
        }
    }

    public func coveredSegments(_ pairs: [[Int64]]) async throws -> Set<[Int64]> {
        let valid = pairs.filter { $0.count == 2 }
        guard !valid.isEmpty else { return [] }
        return try await database.read { db in
            var covered = Set<[Int64]>()
            for start in stride(from: 0, to: valid.count, by: StreetOverlayChunks.size) {
                let chunk = valid[start..<min(start + StreetOverlayChunks.size, valid.count)]
                // The asked pairs drive the loop and each probes the primary key (a, b, path_id): a row-value `IN (VALUES …)`
                // would scan every node pair of every approved path instead.
                let values = Array(repeating: "(?, ?)", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchAll(db, sql: """
                    WITH q(a, b) AS (VALUES \(values))
                    SELECT q.a, q.b FROM q WHERE EXISTS (SELECT 1 FROM approved_path_segments s WHERE s.a = q.a AND s.b = q.b)
                    """, arguments: StatementArguments(chunk.flatMap { $0 }))
                for row in rows { covered.insert([row[0], row[1]]) }
            }
            return covered
        }
    }
}

extension PostgresApprovedNetworkStore: StreetOverlayReads {
    public func overlayVersion() async throws -> Int64 {
        var position: Int64 = 0
        for try await (value) in try await database.client.query("SELECT position FROM approved_network_version WHERE id = 1",
                                                                 logger: database.logger).decode(Int64.self) { position = value }
        return position
    }

    public func markedStreets(_ ids: [Int64]) async throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        var marked = Set<Int64>()
        let query: PostgresQuery = "SELECT street_id FROM street_marks WHERE street_id = ANY(\(ids))"
        for try await (id) in try await database.client.query(query, logger: database.logger).decode(Int64.self) { marked.insert(id) }
        return marked
    }

    public func coveredSegments(_ pairs: [[Int64]]) async throws -> Set<[Int64]> {
        let valid = pairs.filter { $0.count == 2 }
        guard !valid.isEmpty else { return [] }
        let firsts = valid.map { $0[0] }, seconds = valid.map { $0[1] }
        // The asked pairs drive the loop, each an index probe (see the SQLite store).
        let query: PostgresQuery = """
            SELECT q.a, q.b FROM unnest(\(firsts)::bigint[], \(seconds)::bigint[]) AS q(a, b)
            WHERE EXISTS (SELECT 1 FROM approved_path_segments s WHERE s.a = q.a AND s.b = q.b)
            """
        var covered = Set<[Int64]>()
        for try await (a, b) in try await database.client.query(query, logger: database.logger).decode((Int64, Int64).self) { covered.insert([a, b]) }
        return covered
    }
}
