import EventSourcing
import Foundation
import GRDB

/// Signing keys in the service's SQLite database (table `auth_signing_keys`, private keys as PEM).
public struct SQLiteSigningKeyStorage: SigningKeyStorage {
    /// The database holding the keys.
    public let database: SQLiteServiceDatabase

    /// The key table of `database`, which ``AuthMigrations`` created.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func loadAll() async throws -> [StoredSigningKey] {
        try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT kid, private_key_pem, created_at_us, retired_at_us FROM auth_signing_keys ORDER BY created_at_us, kid
                """
            ).map { row in
                StoredSigningKey(
                    kid: row["kid"],
                    privateKeyPEM: row["private_key_pem"],
                    createdAt: Date(microsecondsSince1970: row["created_at_us"]),
                    retiredAt: (row["retired_at_us"] as Int64?).map { Date(microsecondsSince1970: $0) })
            }
        }
    }

    public func insert(_ key: StoredSigningKey) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO auth_signing_keys (kid, private_key_pem, created_at_us, retired_at_us) VALUES (?, ?, ?, ?)
                    """,
                arguments: [key.kid, key.privateKeyPEM, key.createdAt.microsecondsSince1970, key.retiredAt?.microsecondsSince1970])
        }
    }

    public func markRetired(kid: String, at: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE auth_signing_keys SET retired_at_us = ? WHERE kid = ? AND retired_at_us IS NULL",
                arguments: [at.microsecondsSince1970, kid])
        }
    }
}
