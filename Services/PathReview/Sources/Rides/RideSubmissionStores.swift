import Contracts
import EventSourcing
import Foundation
import GRDB
import Messaging
import PostgresNIO

/// The rides the `waypoint.trips` consumer stored and ``RideDraftWorker`` has not yet turned into drafts.
public protocol RideSubmissionStore: Sendable {
    /// Up to 50 rides not yet handled.
    func pending() async throws -> [RideSubmittedAsPathDraft]
    /// Records that the ride of `draftId` was handled (idempotent).
    func markDone(_ draftId: UUID) async throws
    /// Up to 100 ride sightings (record-trip's `ObstacleConfirmed`) not yet counted, in arrival order.
    func pendingSightings() async throws -> [ObstacleConfirmed]
    /// Records that sighting `obstacleId` was counted (idempotent).
    func markSightingDone(_ obstacleId: UUID) async throws
}

/// The store on the configured backend.
public enum RideSubmissionStores {
    /// Opens it over `storage`.
    public static func open(_ storage: ServiceStorage) -> any RideSubmissionStore {
        storage.backend(sqlite: { SQLiteRideSubmissionStore(database: $0) }, postgres: { PostgresRideSubmissionStore(database: $0) })
    }
}

/// ``RideSubmissionStore`` in the embedded SQLite database.
public struct SQLiteRideSubmissionStore: RideSubmissionStore {
    let database: SQLiteServiceDatabase

    /// The store over `database` (its table exists once the consumer prepared).
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func pending() async throws -> [RideSubmittedAsPathDraft] {
        let texts = try await database.read { db -> [String] in
            guard try db.tableExists("ride_submissions") else { return [] }
            return try String.fetchAll(db, sql: "SELECT ride FROM ride_submissions WHERE done = 0 ORDER BY draft_id LIMIT 50")
        }
        return try texts.map(RideSubmissionCoding.ride)
    }

    public func markDone(_ draftId: UUID) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE ride_submissions SET done = 1 WHERE draft_id = ?", arguments: [draftId.uuidString.lowercased()])
        }
    }

    public func pendingSightings() async throws -> [ObstacleConfirmed] {
        let texts = try await database.read { db -> [String] in
            guard try db.tableExists("ride_sightings") else { return [] }
            return try String.fetchAll(db, sql: "SELECT sighting FROM ride_sightings WHERE done = 0 ORDER BY seq LIMIT 100")
        }
        return try texts.map(RideSubmissionCoding.sighting)
    }

    public func markSightingDone(_ obstacleId: UUID) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE ride_sightings SET done = 1 WHERE obstacle_id = ?", arguments: [obstacleId.uuidString.lowercased()])
        }
    }
}

/// ``RideSubmissionStore`` in the service's PostgreSQL database.
public struct PostgresRideSubmissionStore: RideSubmissionStore {
    let database: PostgresServiceDatabase

    /// The store over `database` (its table exists once the consumer prepared).
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func pending() async throws -> [RideSubmittedAsPathDraft] {
        guard try await database.tableExists("ride_submissions") else { return [] }
        var rides: [RideSubmittedAsPathDraft] = []
        for try await (text) in try await database.client.query(
            "SELECT ride FROM ride_submissions WHERE NOT done ORDER BY draft_id LIMIT 50", logger: database.logger).decode(String.self) {
            rides.append(try RideSubmissionCoding.ride(text))
        }
        return rides
    }

    public func markDone(_ draftId: UUID) async throws {
        try await database.client.query("UPDATE ride_submissions SET done = true WHERE draft_id = \(draftId)", logger: database.logger)
    }

    public func pendingSightings() async throws -> [ObstacleConfirmed] {
        guard try await database.tableExists("ride_sightings") else { return [] }
        var sightings: [ObstacleConfirmed] = []
        for try await (text) in try await database.client.query(
            "SELECT sighting FROM ride_sightings WHERE NOT done ORDER BY seq LIMIT 100", logger: database.logger).decode(String.self) {
            sightings.append(try RideSubmissionCoding.sighting(text))
        }
        return sightings
    }

    public func markSightingDone(_ obstacleId: UUID) async throws {
        try await database.client.query("UPDATE ride_sightings SET done = true WHERE obstacle_id = \(obstacleId)", logger: database.logger)
    }
}
