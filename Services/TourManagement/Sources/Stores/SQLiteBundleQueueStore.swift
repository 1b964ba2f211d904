import EventSourcing
import Foundation
import GRDB

/// ``BundleQueueStore`` in the embedded SQLite database.
public struct SQLiteBundleQueueStore: BundleQueueStore {
    let database: SQLiteServiceDatabase

    /// The queue of `database` (its projection creates the table).
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func queued() async throws -> [(tourId: UUID, revision: Int)] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT tour_id, revision FROM bundle_queue ORDER BY tour_id LIMIT 100").map {
                (UUID(uuidString: $0["tour_id"])!, $0["revision"])
            }
        }
    }

    public func dequeue(_ tour: UUID, revision: Int) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM bundle_queue WHERE tour_id = ? AND revision <= ?", arguments: [tour.uuidString.lowercased(), revision])
        }
    }
}
