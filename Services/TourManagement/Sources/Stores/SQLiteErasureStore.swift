import EventSourcing
import Foundation
import GRDB

/// ``ErasureStore`` in the embedded SQLite database.
public struct SQLiteErasureStore: ErasureStore {
    let database: SQLiteServiceDatabase

    /// The store over `database`, whose table ``TourManagementMigrations`` created.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func pendingUsers() async throws -> [UUID] {
        try await database.read { db in
            guard try db.tableExists("guide_accounts") else { return [] }
            return try String.fetchAll(db, sql: """
                SELECT user_id FROM guide_accounts WHERE status = 'erased'
                    AND user_id NOT IN (SELECT user_id FROM erasures_applied) LIMIT 100
                """).compactMap(UUID.init(uuidString:))
        }
    }

    public func markApplied(_ user: UUID) async throws {
        try await database.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO erasures_applied (user_id, applied_at) VALUES (?, ?)",
                           arguments: [user.uuidString.lowercased(), Date()])
        }
    }
}
