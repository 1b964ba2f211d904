import Contracts
import Foundation
import GRDB
import Messaging
import PostgresNIO

/// The `waypoint.trips` consumer of path-review: remembers each `RideSubmittedAsPathDraft` in `ride_submissions`
/// (keyed by draft id, so a redelivery adds nothing) inside the consumer's transaction, with its dedupe record;
/// ``RideDraftWorker`` then makes the drafts (the handler runs in a database transaction and cannot append to the log).
public struct SQLiteRideSubmissionsHandler: SQLiteEventHandler {
    public let name = "ride_submissions"

    /// Creates it.
    public init() {}

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS ride_submissions (draft_id TEXT PRIMARY KEY, ride TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID
            """)
    }

    public func handle(_ event: PublishedEvent, _ db: Database) throws {
        guard event.eventType == RideSubmittedAsPathDraft.eventType else { return }
        let ride = try event.decode(RideSubmittedAsPathDraft.self)
        try db.execute(sql: "INSERT OR IGNORE INTO ride_submissions (draft_id, ride) VALUES (?, ?)",
                       arguments: [ride.draftId.uuidString.lowercased(), try RideSubmissionCoding.text(ride)])
    }
}

/// ``SQLiteRideSubmissionsHandler`` on PostgreSQL.
public struct PostgresRideSubmissionsHandler: PostgresEventHandler {
    public let name = "ride_submissions"

    /// Creates it.
    public init() {}

    public func createTables(_ connection: PostgresConnection) async throws {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS ride_submissions (draft_id uuid PRIMARY KEY, ride text NOT NULL, done boolean NOT NULL DEFAULT false)
            """, logger: connection.logger)
    }

    public func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws {
        guard event.eventType == RideSubmittedAsPathDraft.eventType else { return }
        let ride = try event.decode(RideSubmittedAsPathDraft.self)
        let text = try RideSubmissionCoding.text(ride)
        try await connection.query("""
            INSERT INTO ride_submissions (draft_id, ride) VALUES (\(ride.draftId), \(text)) ON CONFLICT (draft_id) DO NOTHING
            """, logger: connection.logger)
    }
}

/// How a pending ride is kept in `ride_submissions`: the event as JSON text.
enum RideSubmissionCoding {
    static func text(_ ride: RideSubmittedAsPathDraft) throws -> String {
        String(decoding: try JSONEncoder().encode(ride), as: UTF8.self)
    }

    static func ride(_ text: String) throws -> RideSubmittedAsPathDraft {
        try JSONDecoder().decode(RideSubmittedAsPathDraft.self, from: Data(text.utf8))
    }
}
