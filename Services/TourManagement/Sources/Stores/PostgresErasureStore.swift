import EventSourcing
import Foundation
import PostgresNIO

/// ``ErasureStore`` in the service's PostgreSQL database.
public struct PostgresErasureStore: ErasureStore {
    let database: PostgresServiceDatabase

    /// The store over `database`, whose table ``TourManagementMigrations`` created.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func pendingUsers() async throws -> [UUID] {
        guard try await database.tableExists("guide_accounts") else { return [] }
        var users: [UUID] = []
        for try await (id) in try await database.client.query("""
            SELECT user_id FROM guide_accounts WHERE status = 'erased'
                AND user_id NOT IN (SELECT user_id FROM erasures_applied) LIMIT 100
            """, logger: database.logger).decode(UUID.self) {
            users.append(id)
        }
        return users
    }

    public func markApplied(_ user: UUID) async throws {
        try await database.client.query(
            "INSERT INTO erasures_applied (user_id, applied_at) VALUES (\(user), now()) ON CONFLICT (user_id) DO NOTHING", logger: database.logger)
    }
}
