import Crypto
import Foundation
import NIOCore
import PostgresNIO

/// Per-subject keys in the service's PostgreSQL database.
public struct PostgresPersonalDataKeyStore: PersonalDataKeyStore {
    let database: PostgresServiceDatabase
    let wrapper: KeyWrapper

    /// Opens the key table, creating it if needed. The database must be running.
    ///
    /// - Parameter keyEncryptionKey: when set (recommended in production), data keys are stored wrapped with it.
    public init(database: PostgresServiceDatabase, keyEncryptionKey: SymmetricKey? = nil) async throws {
        self.database = database
        self.wrapper = KeyWrapper(keyEncryptionKey: keyEncryptionKey)
        try await database.createSchemaIfNeeded()
        try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7300003)", logger: database.logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS es_personal_keys (
                    subject text PRIMARY KEY, key bytea, created_at timestamptz NOT NULL, erased_at timestamptz)
                """, logger: database.logger)
        }
    }

    public func keyForSealing(_ subject: String) async throws -> SymmetricKey {
        // Usually the key exists: a read, without a write and its commit.
        let existing = try await database.client.query(
            "SELECT key FROM es_personal_keys WHERE subject = \(subject)", logger: database.logger)
        for try await stored in existing.decode(ByteBuffer?.self) {
            guard let stored else { throw PersonalDataError.subjectErased(subject) }
            return try wrapper.unwrap(Data(buffer: stored), subject: subject)
        }
        let fresh = ByteBuffer(data: try wrapper.wrap(SymmetricKey(size: .bits256)))
        // The no-op update makes RETURNING yield the stored row whether or not this call inserted it.
        let rows = try await database.client.query("""
            INSERT INTO es_personal_keys (subject, key, created_at) VALUES (\(subject), \(fresh), now())
            ON CONFLICT (subject) DO UPDATE SET subject = es_personal_keys.subject
            RETURNING key
            """, logger: database.logger)
        for try await stored in rows.decode(ByteBuffer?.self) {
            guard let stored else { throw PersonalDataError.subjectErased(subject) }
            return try wrapper.unwrap(Data(buffer: stored), subject: subject)
        }
        throw PersonalDataError.corrupted("no key row for \(subject)")
    }

    public func keyForOpening(_ subject: String) async throws -> SymmetricKey? {
        let rows = try await database.client.query(
            "SELECT key FROM es_personal_keys WHERE subject = \(subject)", logger: database.logger)
        for try await stored in rows.decode(ByteBuffer?.self) {
            return try stored.map { try wrapper.unwrap(Data(buffer: $0), subject: subject) }
        }
        return nil
    }

    public func erase(_ subject: String) async throws {
        try await database.client.query("""
            INSERT INTO es_personal_keys (subject, key, created_at, erased_at) VALUES (\(subject), NULL, now(), now())
            ON CONFLICT (subject) DO UPDATE SET key = NULL, erased_at = now()
            """, logger: database.logger)
    }
}
