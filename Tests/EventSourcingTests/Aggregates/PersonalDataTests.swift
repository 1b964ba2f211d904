import Contracts
import Crypto
import EventSourcing
import Foundation
import ServiceTesting
import Testing

@Suite("Crypto-shredding of personal data in events")
struct PersonalDataTests {
    struct EmailRecorded: EventPayload {
        static let eventType = "EmailRecorded"
        var userID: String
        var email: SealedPersonalData
    }

    static func cipher(_ connection: TestDatabase.Connection, kek: SymmetricKey? = nil) async throws -> any PersonalDataKeyStore {
        switch connection {
        case .sqlite(let database): try await SQLitePersonalDataKeyStore(database: database, keyEncryptionKey: kek)
        case .postgres(let database): try await PostgresPersonalDataKeyStore(database: database, keyEncryptionKey: kek)
        }
    }

    @Test("sealed fields read back until the key is erased; then neither reads nor replays recover them, and nothing new can be sealed",
          arguments: TestBackend.enabled)
    func eraseKeyForgetsPerson(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, connection in
            let kek = SymmetricKey(size: .bits256)
            let cipher = PersonalDataCipher(keys: AnyKeys(try await Self.cipher(connection, kek: kek)))
            let sealed = try await cipher.seal("ada@example.org", for: "user-1")
            let other = try await cipher.seal("bob@example.org", for: "user-2")
            try await store.append(try EmailRecorded(userID: "user-1", email: sealed).newEvent(), to: "user-1", expectedVersion: .noStream)
            #expect(!String(decoding: try await store.readStream("user-1")[0].payload, as: UTF8.self).contains("ada@"))

            let stored = try await store.readStream("user-1")[0].decode(EmailRecorded.self)
            #expect(try await cipher.open(stored.email) == "ada@example.org")

            try await cipher.erase("user-1")
            #expect(try await cipher.open(stored.email) == nil)
            #expect(try await cipher.open(other) == "bob@example.org")
            await #expect(throws: PersonalDataError.subjectErased("user-1")) {
                try await cipher.seal("again@example.org", for: "user-1")
            }
            let reopened = PersonalDataCipher(keys: AnyKeys(try await Self.cipher(connection, kek: kek)))
            #expect(try await reopened.open(stored.email) == nil)

            let wrongKEK = PersonalDataCipher(keys: AnyKeys(try await Self.cipher(connection, kek: SymmetricKey(size: .bits256))))
            await #expect(throws: PersonalDataError.self) { try await wrongKEK.open(other) }
        }
    }
}

/// Lets the test pick a key store per backend at run time.
struct AnyKeys: PersonalDataKeyStore {
    let base: any PersonalDataKeyStore
    init(_ base: any PersonalDataKeyStore) { self.base = base }
    func keyForSealing(_ subject: String) async throws -> SymmetricKey { try await base.keyForSealing(subject) }
    func keyForOpening(_ subject: String) async throws -> SymmetricKey? { try await base.keyForOpening(subject) }
    func erase(_ subject: String) async throws { try await base.erase(subject) }
}
