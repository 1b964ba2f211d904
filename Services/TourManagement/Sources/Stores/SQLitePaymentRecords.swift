import EventSourcing
import Foundation
import GRDB

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
