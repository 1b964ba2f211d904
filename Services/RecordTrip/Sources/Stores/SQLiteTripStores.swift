import ServiceKit
import EventSourcing
import Foundation
import GRDB

/// ``TripReadStore`` in the embedded SQLite database.
public struct SQLiteTripReadStore: TripReadStore {
    let database: SQLiteServiceDatabase

    /// The store over `database` (its tables exist once the migrations and projections ran).
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func page(rider: UUID, after cursor: PageCursor?, limit: Int) async throws -> [TripRow] {
        var sql = "SELECT row FROM trips WHERE rider_id = ?"
        var arguments: StatementArguments = [rider.uuidString.lowercased()]
        if let cursor {
            sql += " AND (sort_at_us < ? OR (sort_at_us = ? AND trip_id < ?))"
            arguments += [cursor.key, cursor.key, cursor.id.uuidString.lowercased()]
        }
        sql += " ORDER BY sort_at_us DESC, trip_id DESC LIMIT \(limit)"
        let (statement, binds) = (sql, arguments)
        return try await database.read { db in try String.fetchAll(db, sql: statement, arguments: binds).map(TripRowFold.decode) }
    }

    public func all(rider: UUID) async throws -> [TripRow] {
        try await database.read { db in
            try String.fetchAll(db, sql: "SELECT row FROM trips WHERE rider_id = ? ORDER BY sort_at_us DESC, trip_id DESC",
                                arguments: [rider.uuidString.lowercased()]).map(TripRowFold.decode)
        }
    }

    public func weatherPending(limit: Int) async throws -> [UUID] {
        try await ids(where: "weather_pending = 1", limit: limit)
    }

    public func analysisPending(limit: Int) async throws -> [UUID] {
        try await ids(where: "analysis_pending = 1", limit: limit)
    }

    private func ids(where condition: String, limit: Int) async throws -> [UUID] {
        try await database.read { db in
            try String.fetchAll(db, sql: "SELECT trip_id FROM trips WHERE \(condition) LIMIT \(limit)").compactMap(UUID.init(uuidString:))
        }
    }
}
