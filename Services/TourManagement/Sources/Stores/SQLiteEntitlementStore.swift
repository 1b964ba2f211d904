import EventSourcing
import Foundation
import GRDB

/// ``EntitlementStore`` in the embedded SQLite database.
public struct SQLiteEntitlementStore: EntitlementStore {
    let database: SQLiteServiceDatabase

    /// The reads of `database`'s `entitlements` read model.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func entitlement(tour: UUID, user: UUID) async throws -> Entitlement? {
        try await database.read { db in
            try String.fetchOne(db, sql: "SELECT row FROM entitlements WHERE tour_id = ? AND user_id = ?",
                                arguments: [tour.uuidString.lowercased(), user.uuidString.lowercased()]).map(Entitlements.decode)
        }
    }

    public func owned(by user: UUID) async throws -> [Entitlement] {
        try await database.read { db in
            try String.fetchAll(db, sql: "SELECT row FROM entitlements WHERE user_id = ? AND active = 1 ORDER BY granted_at_us DESC",
                                arguments: [user.uuidString.lowercased()]).map(Entitlements.decode)
        }
    }
}
