import EventSourcing
import Foundation
import GRDB

/// ``BundleSigningKeyStore`` in the embedded SQLite database.
public struct SQLiteBundleSigningKeyStore: BundleSigningKeyStore {
    let database: SQLiteServiceDatabase

    /// The store over `database`, whose table ``TourManagementMigrations`` created.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func oldestKey(insertingIfNone encoded: String, keyId: String) async throws -> String {
        try await database.write { db in
            if let existing = try String.fetchOne(db, sql: "SELECT private_key FROM bundle_signing_keys ORDER BY created_at, key_id LIMIT 1") {
                return existing
            }
            try db.execute(sql: "INSERT INTO bundle_signing_keys (key_id, private_key, created_at) VALUES (?, ?, ?)",
                           arguments: [keyId, encoded, Date()])
            return encoded
        }
    }
}
