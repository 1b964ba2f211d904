import EventSourcing
import Foundation
import Logging
import PostgresNIO

/// Signing keys in the service's PostgreSQL database (table `auth_signing_keys`, private keys as PEM).
public struct PostgresSigningKeyStorage: SigningKeyStorage {
    /// The database holding the keys.
    public let database: PostgresServiceDatabase
    private let logger: Logger

    /// The key table of `database`, which ``AuthMigrations`` created.
    public init(database: PostgresServiceDatabase, logger: Logger = Logger(label: "waypoint.auth.signing-keys")) {
        self.database = database
        self.logger = logger
    }

    public func loadAll() async throws -> [StoredSigningKey] {
        let rows = try await database.client.query(
            "SELECT kid, private_key_pem, created_at, retired_at FROM auth_signing_keys ORDER BY created_at, kid",
            logger: logger)
        var keys: [StoredSigningKey] = []
        for try await (kid, pem, createdAt, retiredAt) in rows.decode((String, String, Date, Date?).self) {
            keys.append(StoredSigningKey(kid: kid, privateKeyPEM: pem, createdAt: createdAt, retiredAt: retiredAt))
        }
        return keys
    }

    public func insert(_ key: StoredSigningKey) async throws {
        try await database.client.query("""
            INSERT INTO auth_signing_keys (kid, private_key_pem, created_at, retired_at)
            VALUES (\(key.kid), \(key.privateKeyPEM), \(key.createdAt), \(key.retiredAt))
            """, logger: logger)
    }

    public func markRetired(kid: String, at: Date) async throws {
        try await database.client.query(
            "UPDATE auth_signing_keys SET retired_at = \(at) WHERE kid = \(kid) AND retired_at IS NULL", logger: logger)
    }
}
