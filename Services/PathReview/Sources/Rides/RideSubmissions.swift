import Contracts
import Foundation
import GRDB
import Messaging
import PostgresNIO

/// The `waypoint.trips` consumer of path-review: remembers each `RideSubmittedAsPathDraft` in `ride_submissions`
/// (keyed by draft id, so a redelivery adds nothing) and each `ObstacleConfirmed` in `ride_sightings` (keyed by
/// record-trip's obstacle id) inside the consumer's transaction, with its dedupe record; ``RideDraftWorker`` makes the
/// drafts and ``RideSightingWorker`` counts the sightings into approved paths (the handler runs in a database
/// transaction and cannot append to the log).
public struct SQLiteRideSubmissionsHandler: SQLiteEventHandler {
    public let name = "ride_submissions"

    /// Creates it.
    public init() {}

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS ride_submissions (draft_id TEXT PRIMARY KEY, ride TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID
            """)
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS ride_sightings (seq INTEGER PRIMARY KEY AUTOINCREMENT, obstacle_id TEXT NOT NULL UNIQUE, sighting TEXT NOT NULL,
                done INTEGER NOT NULL DEFAULT 0)
            """)
    }

    public func handle(_ event: PublishedEvent, _ db: Database) throws {
        if event.eventType == ObstacleConfirmed.eventType {
            let sighting = try event.decode(ObstacleConfirmed.self)
            try db.execute(sql: "INSERT OR IGNORE INTO ride_sightings (obstacle_id, sighting) VALUES (?, ?)",
                           arguments: [sighting.obstacleId.uuidString.lowercased(), try RideSubmissionCoding.text(sighting)])
            return
        }
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
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS ride_sightings (seq bigserial PRIMARY KEY, obstacle_id uuid NOT NULL UNIQUE, sighting text NOT NULL,
                done boolean NOT NULL DEFAULT false)
            """, logger: connection.logger)
    }

    public func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws {
        if event.eventType == ObstacleConfirmed.eventType {
            let sighting = try event.decode(ObstacleConfirmed.self)
            let text = try RideSubmissionCoding.text(sighting)
            try await connection.query("""
                INSERT INTO ride_sightings (obstacle_id, sighting) VALUES (\(sighting.obstacleId), \(text)) ON CONFLICT (obstacle_id) DO NOTHING
                """, logger: connection.logger)
            return
        }
        guard event.eventType == RideSubmittedAsPathDraft.eventType else { return }
        let ride = try event.decode(RideSubmittedAsPathDraft.self)
        let text = try RideSubmissionCoding.text(ride)
        try await connection.query("""
            INSERT INTO ride_submissions (draft_id, ride) VALUES (\(ride.draftId), \(text)) ON CONFLICT (draft_id) DO NOTHING
            """, logger: connection.logger)
    }
}

/// How a pending ride (or sighting) is kept in `ride_submissions` (`ride_sightings`): the event as JSON text.
enum RideSubmissionCoding {
    static func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    static func sighting(_ text: String) throws -> ObstacleConfirmed {
        try JSONDecoder().decode(ObstacleConfirmed.self, from: Data(text.utf8))
    }

    static func ride(_ text: String) throws -> RideSubmittedAsPathDraft {
        try JSONDecoder().decode(RideSubmittedAsPathDraft.self, from: Data(text.utf8))
    }
}
