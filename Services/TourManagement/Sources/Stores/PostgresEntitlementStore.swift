import EventSourcing
import Foundation
import PostgresNIO

/// ``EntitlementStore`` in the service's PostgreSQL database.
public struct PostgresEntitlementStore: EntitlementStore {
    let database: PostgresServiceDatabase

    /// The reads of `database`'s `entitlements` read model.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func entitlement(tour: UUID, user: UUID) async throws -> Entitlement? {
        let query: PostgresQuery = "SELECT row FROM entitlements WHERE tour_id = \(tour) AND user_id = \(user)"
        for try await (text) in try await database.client.query(query, logger: database.logger).decode(String.self) {
            return try Entitlements.decode(text)
        }
        return nil
    }

    public func owned(by user: UUID) async throws -> [Entitlement] {
        let query: PostgresQuery = "SELECT row FROM entitlements WHERE user_id = \(user) AND active ORDER BY granted_at_us DESC"
        var rows: [Entitlement] = []
        for try await (text) in try await database.client.query(query, logger: database.logger).decode(String.self) {
            rows.append(try Entitlements.decode(text))
        }
        return rows
    }
}
