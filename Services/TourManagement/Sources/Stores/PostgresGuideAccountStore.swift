import EventSourcing
import Foundation
import PostgresNIO

/// ``GuideAccountStore`` in the service's PostgreSQL database.
public struct PostgresGuideAccountStore: GuideAccountStore {
    let database: PostgresServiceDatabase

    /// The reads of `database`'s `guide_accounts`.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func accounts(_ ids: [UUID]) async throws -> [UUID: GuideAccount] {
        let query: PostgresQuery = "SELECT \(unescaped: PostgresGuideAccountsHandler.columns) FROM guide_accounts WHERE user_id = ANY(\(ids))"
        var result: [UUID: GuideAccount] = [:]
        do {
            for try await row in try await database.client.query(query, logger: database.logger) {
                let account = try PostgresGuideAccountsHandler.row(row)
                result[account.userId] = account
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {
            return [:]  // undefined_table: the consumer has not prepared its table yet
        }
        return result
    }

    public func all() async throws -> [GuideAccount] {
        var result: [GuideAccount] = []
        let query: PostgresQuery = "SELECT \(unescaped: PostgresGuideAccountsHandler.columns) FROM guide_accounts ORDER BY user_id::text"
        for try await row in try await database.client.query(query, logger: database.logger) {
            result.append(try PostgresGuideAccountsHandler.row(row))
        }
        return result
    }
}
