import ServiceKit
import EventSourcing
import Foundation
import PostgresNIO

/// ``TripReadStore`` in the service's PostgreSQL database.
public struct PostgresTripReadStore: TripReadStore {
    let database: PostgresServiceDatabase

    /// The store over `database` (its tables exist once the migrations and projections ran).
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func page(rider: UUID, after cursor: PageCursor?, limit: Int) async throws -> [TripRow] {
        let query: PostgresQuery = if let cursor {
            """
            SELECT row FROM trips WHERE rider_id = \(rider)
                AND (sort_at_us < \(cursor.key) OR (sort_at_us = \(cursor.key) AND trip_id < \(cursor.id)))
            ORDER BY sort_at_us DESC, trip_id DESC LIMIT \(limit)
            """
        } else {
            "SELECT row FROM trips WHERE rider_id = \(rider) ORDER BY sort_at_us DESC, trip_id DESC LIMIT \(limit)"
        }
        return try await rows(query)
    }

    public func all(rider: UUID) async throws -> [TripRow] {
        try await rows("SELECT row FROM trips WHERE rider_id = \(rider) ORDER BY sort_at_us DESC, trip_id DESC")
    }

    public func weatherPending(limit: Int) async throws -> [UUID] {
        try await ids("SELECT trip_id FROM trips WHERE weather_pending LIMIT \(limit)")
    }

    public func analysisPending(limit: Int) async throws -> [UUID] {
        try await ids("SELECT trip_id FROM trips WHERE analysis_pending LIMIT \(limit)")
    }

    private func ids(_ query: PostgresQuery) async throws -> [UUID] {
        var ids: [UUID] = []
        for try await (id) in try await database.client.query(query, logger: database.logger).decode(UUID.self) {
            ids.append(id)
        }
        return ids
    }

    private func rows(_ query: PostgresQuery) async throws -> [TripRow] {
        var result: [TripRow] = []
        for try await (text) in try await database.client.query(query, logger: database.logger).decode(String.self) {
            result.append(try TripRowFold.decode(text))
        }
        return result
    }
}
