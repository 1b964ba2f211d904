import EventSourcing
import Foundation
import PostgresNIO

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
