import EventSourcing
import Foundation
import GRDB

/// ``GuideAccountStore`` in the embedded SQLite database.
public struct SQLiteGuideAccountStore: GuideAccountStore {
    let database: SQLiteServiceDatabase

    /// The reads of `database`'s `guide_accounts`.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func accounts(_ ids: [UUID]) async throws -> [UUID: GuideAccount] {
        try await database.read { db in
            guard try db.tableExists("guide_accounts") else { return [:] }
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM guide_accounts WHERE user_id IN (\(marks))",
                                        arguments: StatementArguments(ids.map { $0.uuidString.lowercased() }))
            return Dictionary(uniqueKeysWithValues: rows.map(SQLiteGuideAccountsHandler.row).map { ($0.userId, $0) })
        }
    }

    public func all() async throws -> [GuideAccount] {
        try await database.read { db in
            guard try db.tableExists("guide_accounts") else { return [] }
            return try Row.fetchAll(db, sql: "SELECT * FROM guide_accounts ORDER BY user_id").map(SQLiteGuideAccountsHandler.row)
        }
    }
}
