import Foundation

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
