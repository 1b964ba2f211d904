import EventSourcing
import Foundation
import PostgresNIO

/// ``BundleSigningKeyStore`` in the service's PostgreSQL database.
public struct PostgresBundleSigningKeyStore: BundleSigningKeyStore {
    let database: PostgresServiceDatabase

    /// The store over `database`, whose table ``TourManagementMigrations`` created.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func oldestKey(insertingIfNone encoded: String, keyId: String) async throws -> String {
        try await database.client.query("""
            INSERT INTO bundle_signing_keys (key_id, private_key, created_at)
            SELECT \(keyId), \(encoded), now() WHERE NOT EXISTS (SELECT 1 FROM bundle_signing_keys)
            """, logger: database.logger)
        for try await (key) in try await database.client.query(
            "SELECT private_key FROM bundle_signing_keys ORDER BY created_at, key_id LIMIT 1", logger: database.logger).decode(String.self) {
            return key
        }
        return encoded
    }
}
