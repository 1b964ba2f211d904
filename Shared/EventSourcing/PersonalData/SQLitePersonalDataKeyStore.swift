import Crypto
import Foundation
import GRDB

/// Per-subject keys in the service's SQLite database.
public struct SQLitePersonalDataKeyStore: PersonalDataKeyStore {
    let database: SQLiteServiceDatabase
    let wrapper: KeyWrapper

    /// Opens the key table, creating it if needed.
    ///
    /// - Parameter keyEncryptionKey: when set (recommended in production), data keys are stored wrapped with it.
    public init(database: SQLiteServiceDatabase, keyEncryptionKey: SymmetricKey? = nil) async throws {
        self.database = database
        self.wrapper = KeyWrapper(keyEncryptionKey: keyEncryptionKey)
        try await database.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS es_personal_keys (
                    subject TEXT PRIMARY KEY, key BLOB, created_at_us INTEGER NOT NULL, erased_at_us INTEGER)
                """)
        }
    }

    public func keyForSealing(_ subject: String) async throws -> SymmetricKey {
        // Usually the key exists: a read, without a write transaction and its fsync.
        let existing: Data?? = try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT key FROM es_personal_keys WHERE subject = ?", arguments: [subject]).map { $0[0] as Data? }
        }
        if let existing {
            guard let existing else { throw PersonalDataError.subjectErased(subject) }
            return try wrapper.unwrap(existing, subject: subject)
        }
        let fresh = try wrapper.wrap(SymmetricKey(size: .bits256))
        let stored: Data? = try await database.write { db in
            try db.execute(sql: """
                INSERT INTO es_personal_keys (subject, key, created_at_us) VALUES (?, ?, ?) ON CONFLICT (subject) DO NOTHING
                """, arguments: [subject, fresh, Date().microsecondsSince1970])
            return try Data?.fetchOne(db, sql: "SELECT key FROM es_personal_keys WHERE subject = ?", arguments: [subject]) ?? nil
        }
        guard let stored else { throw PersonalDataError.subjectErased(subject) }
        return try wrapper.unwrap(stored, subject: subject)
    }

    public func keyForOpening(_ subject: String) async throws -> SymmetricKey? {
        let stored: Data? = try await database.read { db in
            try Data?.fetchOne(db, sql: "SELECT key FROM es_personal_keys WHERE subject = ?", arguments: [subject]) ?? nil
        }
        return try stored.map { try wrapper.unwrap($0, subject: subject) }
    }

    public func erase(_ subject: String) async throws {
        try await database.write { db in
            try db.execute(sql: """
                INSERT INTO es_personal_keys (subject, key, created_at_us, erased_at_us) VALUES (?, NULL, ?, ?)
                ON CONFLICT (subject) DO UPDATE SET key = NULL, erased_at_us = excluded.erased_at_us
                """, arguments: [subject, Date().microsecondsSince1970, Date().microsecondsSince1970])
        }
    }
}
