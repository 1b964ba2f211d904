import EventSourcing
import Foundation
import PostgresNIO

/// ``BundleQueueStore`` in the service's PostgreSQL database.
public struct PostgresBundleQueueStore: BundleQueueStore {
    let database: PostgresServiceDatabase

    /// The queue of `database` (its projection creates the table).
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func queued() async throws -> [(tourId: UUID, revision: Int)] {
        var rows: [(tourId: UUID, revision: Int)] = []
        for try await (id, revision) in try await database.client.query("SELECT tour_id, revision FROM bundle_queue ORDER BY tour_id LIMIT 100",
                                                                        logger: database.logger).decode((UUID, Int32).self) {
            rows.append((id, Int(revision)))
        }
        return rows
    }

    public func dequeue(_ tour: UUID, revision: Int) async throws {
        try await database.client.query("DELETE FROM bundle_queue WHERE tour_id = \(tour) AND revision <= \(Int32(revision))",
                                        logger: database.logger)
    }
}
