import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// A checkout of the sandbox provider: what its confirm and decline routes need to send the webhook.
public struct SandboxSession: Codable, Sendable, Hashable {
    public var purchaseId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var amountMinor: Int64
    public var currency: String
    /// `sbx_cs_…`: `PurchaseStarted.providerReference`.
    public var reference: String
    /// `sbx_pi_…`: `PurchaseCompleted.providerPaymentId`.
    public var paymentIntent: String
    public var createdAt: Date
    public var expiresAt: Date
}

/// Small operational tables of the payments part, in the service's database (not events, not a read model):
/// `payment_settings (key PRIMARY KEY, value)` — the generated sandbox webhook secret — and
/// `payment_sandbox_sessions (purchase_id PRIMARY KEY, session JSON)`, so sandbox checkouts survive a restart.
public protocol PaymentRecords: Sendable {
    /// The stored value of `key`; when there is none, stores `value` and returns it (the first writer wins, so several
    /// instances starting at once agree).
    func setting(_ key: String, insertingIfMissing value: String) async throws -> String
    /// Stores a sandbox checkout unless one with its purchase id exists; returns the stored one.
    func saveSandboxSession(_ session: SandboxSession) async throws -> SandboxSession
    func sandboxSession(_ purchaseId: UUID) async throws -> SandboxSession?
}

enum PaymentRecordsCoding {
    static func encode(_ session: SandboxSession) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(session), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> SandboxSession {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(SandboxSession.self, from: Data(text.utf8))
    }
}

/// ``PaymentRecords`` in the embedded SQLite database.
public struct SQLitePaymentRecords: PaymentRecords {
    let database: SQLiteServiceDatabase

    /// The records over `database`, whose tables ``TourManagementMigrations`` created.
    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func setting(_ key: String, insertingIfMissing value: String) async throws -> String {
        try await database.write { db in
            if let stored = try String.fetchOne(db, sql: "SELECT value FROM payment_settings WHERE key = ?", arguments: [key]) { return stored }
            try db.execute(sql: "INSERT INTO payment_settings (key, value) VALUES (?, ?)", arguments: [key, value])
            return value
        }
    }

    public func saveSandboxSession(_ session: SandboxSession) async throws -> SandboxSession {
        let text = try PaymentRecordsCoding.encode(session)
        let id = session.purchaseId.uuidString.lowercased()
        return try await database.write { db in
            if let stored = try String.fetchOne(db, sql: "SELECT session FROM payment_sandbox_sessions WHERE purchase_id = ?", arguments: [id]) {
                return try PaymentRecordsCoding.decode(stored)
            }
            try db.execute(sql: "INSERT INTO payment_sandbox_sessions (purchase_id, session) VALUES (?, ?)", arguments: [id, text])
            return session
        }
    }

    public func sandboxSession(_ purchaseId: UUID) async throws -> SandboxSession? {
        try await database.read { db in
            try String.fetchOne(db, sql: "SELECT session FROM payment_sandbox_sessions WHERE purchase_id = ?",
                                arguments: [purchaseId.uuidString.lowercased()]).map(PaymentRecordsCoding.decode)
        }
    }
}

/// ``PaymentRecords`` in the service's PostgreSQL database.
public struct PostgresPaymentRecords: PaymentRecords {
    let database: PostgresServiceDatabase

    /// The records over `database`, whose tables ``TourManagementMigrations`` created.
    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    private func first(_ query: PostgresQuery) async throws -> String? {
        for try await (text) in try await database.client.query(query, logger: database.logger).decode(String.self) { return text }
        return nil
    }

    public func setting(_ key: String, insertingIfMissing value: String) async throws -> String {
        // Insert-or-keep: a concurrent first start's row wins and both read it back.
        _ = try await first("""
            INSERT INTO payment_settings (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO NOTHING RETURNING value
            """)
        guard let stored = try await first("SELECT value FROM payment_settings WHERE key = \(key)") else {
            throw PaymentProviderError("payment setting \(key) could not be stored")
        }
        return stored
    }

    public func saveSandboxSession(_ session: SandboxSession) async throws -> SandboxSession {
        let text = try PaymentRecordsCoding.encode(session)
        _ = try await first("""
            INSERT INTO payment_sandbox_sessions (purchase_id, session) VALUES (\(session.purchaseId), \(text))
            ON CONFLICT (purchase_id) DO NOTHING RETURNING session
            """)
        return try await sandboxSession(session.purchaseId) ?? session
    }

    public func sandboxSession(_ purchaseId: UUID) async throws -> SandboxSession? {
        try await first("SELECT session FROM payment_sandbox_sessions WHERE purchase_id = \(purchaseId)").map(PaymentRecordsCoding.decode)
    }
}
