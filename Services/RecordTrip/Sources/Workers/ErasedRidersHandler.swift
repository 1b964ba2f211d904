import Contracts
import EventSourcing
import Foundation
import GRDB
import Messaging
import PostgresNIO

/// The `waypoint.auth` consumer of record-trip: remembers each `UserErased` in `erased_riders`, inside the consumer's
/// transaction (with its dedupe record); ``RiderErasureWorker`` then destroys the key and removes the trips.
public struct SQLiteErasedRidersHandler: SQLiteEventHandler {
    public let name = "erased_riders"

    /// Creates it.
    public init() {}

    public func createTables(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS erased_riders (user_id TEXT PRIMARY KEY, erased_at_us INTEGER NOT NULL) WITHOUT ROWID")
    }

    public func handle(_ event: PublishedEvent, _ db: Database) throws {
        guard event.eventType == UserErased.eventType else { return }
        let erased = try event.decode(UserErased.self)
        try db.execute(sql: "INSERT OR IGNORE INTO erased_riders (user_id, erased_at_us) VALUES (?, ?)",
                       arguments: [erased.userId.uuidString.lowercased(), erased.erasedAt.microsecondsSince1970])
    }
}

/// ``SQLiteErasedRidersHandler`` on PostgreSQL.
public struct PostgresErasedRidersHandler: PostgresEventHandler {
    public let name = "erased_riders"

    /// Creates it.
    public init() {}

    public func createTables(_ connection: PostgresConnection) async throws {
        try await connection.query("CREATE TABLE IF NOT EXISTS erased_riders (user_id uuid PRIMARY KEY, erased_at timestamptz NOT NULL)",
                                   logger: connection.logger)
    }

    public func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws {
        guard event.eventType == UserErased.eventType else { return }
        let erased = try event.decode(UserErased.self)
        try await connection.query("""
            INSERT INTO erased_riders (user_id, erased_at) VALUES (\(erased.userId), \(erased.erasedAt)) ON CONFLICT (user_id) DO NOTHING
            """, logger: connection.logger)
    }
}
