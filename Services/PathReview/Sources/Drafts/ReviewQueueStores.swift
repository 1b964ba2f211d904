import EventSourcing
import Foundation
import GRDB
import PostgresNIO
import ServiceKit

/// An area of the queue filter: south, west, north, east in degrees (west ≤ east: no box across the antimeridian).
public struct QueueArea: Sendable, Hashable {
    public var south: Double, west: Double, north: Double, east: Double
}

/// Reads of the `review_queue` read model (``SQLiteReviewQueueProjection``, ``PostgresReviewQueueProjection``).
public protocol ReviewQueueStore: Sendable {
    /// Items oldest first (ties by draft id), whose route's box meets `area` when given, after `cursor`.
    func page(area: QueueArea?, after cursor: PageCursor?, limit: Int) async throws -> [ReviewQueueRow]
}

/// ``ReviewQueueStore`` in the embedded SQLite database.
public struct SQLiteReviewQueueStore: ReviewQueueStore {
    let database: SQLiteServiceDatabase

    /// The store over `database` (its table exists once the projection ran).
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func page(area: QueueArea?, after cursor: PageCursor?, limit: Int) async throws -> [ReviewQueueRow] {
        var sql = "SELECT row FROM review_queue WHERE 1 = 1"
        var arguments: StatementArguments = []
        if let area {
            sql += " AND north >= ? AND south <= ? AND east >= ? AND west <= ?"
            arguments += [area.south, area.north, area.west, area.east]
        }
        if let cursor {
            sql += " AND (submitted_at_us > ? OR (submitted_at_us = ? AND draft_id > ?))"
            arguments += [cursor.key, cursor.key, cursor.id.uuidString.lowercased()]
        }
        sql += " ORDER BY submitted_at_us, draft_id LIMIT \(limit)"
        let (statement, binds) = (sql, arguments)
        return try await database.read { db in try String.fetchAll(db, sql: statement, arguments: binds).map(ReviewQueueFold.decode) }
    }
}

/// ``ReviewQueueStore`` in the service's PostgreSQL database.
public struct PostgresReviewQueueStore: ReviewQueueStore {
    let database: PostgresServiceDatabase

    /// The store over `database` (its table exists once the projection ran).
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func page(area: QueueArea?, after cursor: PageCursor?, limit: Int) async throws -> [ReviewQueueRow] {
        let (south, north, west, east) = area.map { ($0.south, $0.north, $0.west, $0.east) } ?? (-90, 90, -180, 180)
        let (key, id) = cursor.map { ($0.key, $0.id) } ?? (Int64.min, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        let query: PostgresQuery = """
            SELECT row FROM review_queue WHERE north >= \(south) AND south <= \(north) AND east >= \(west) AND west <= \(east)
                AND (submitted_at_us > \(key) OR (submitted_at_us = \(key) AND draft_id > \(id)))
            ORDER BY submitted_at_us, draft_id LIMIT \(limit)
            """
        var rows: [ReviewQueueRow] = []
        for try await (text) in try await database.client.query(query, logger: database.logger).decode(String.self) {
            rows.append(try ReviewQueueFold.decode(text))
        }
        return rows
    }
}
