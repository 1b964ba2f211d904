import Contracts
import Crypto
import Foundation

/// Seals and opens personal fields with per-subject keys (AES-256-GCM).
public struct PersonalDataCipher<Keys: PersonalDataKeyStore>: Sendable {
    /// Where the per-subject keys live.
    public let keys: Keys

    /// Creates a cipher over a key store.
    public init(keys: Keys) {
        self.keys = keys
    }

    /// Encrypts `plaintext` with the subject's key (creating it on first use).
    public func seal(_ plaintext: String, for subject: String) async throws -> SealedPersonalData {
        try await seal(bytes: Data(plaintext.utf8), for: subject)
    }

    /// Encrypts bytes with the subject's key (creating it on first use): for binary payloads, without a text detour.
    public func seal(bytes plaintext: Data, for subject: String) async throws -> SealedPersonalData {
        let key = try await keys.keyForSealing(subject)
        guard let combined = try AES.GCM.seal(plaintext, using: key).combined else {
            throw PersonalDataError.corrupted("cannot seal")
        }
        return SealedPersonalData(subject: subject, sealed: combined.base64EncodedString())
    }

    /// Decrypts a sealed field; `nil` when the subject was erased.
    public func open(_ value: SealedPersonalData) async throws -> String? {
        try await openBytes(value).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Decrypts a sealed value to its bytes; `nil` when the subject was erased.
    public func openBytes(_ value: SealedPersonalData) async throws -> Data? {
        guard let key = try await keys.keyForOpening(value.subject) else { return nil }
        return try Self.open(value, with: key)
    }

    private static func open(_ value: SealedPersonalData, with key: SymmetricKey) throws -> Data {
        guard let data = Data(base64Encoded: value.sealed) else { throw PersonalDataError.corrupted("not base64") }
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: data), using: key)
        } catch {
            throw PersonalDataError.corrupted("sealed value of \(value.subject) does not open")
        }
    }

    /// Decrypts many sealed values in order, each `nil` when its subject was erased; each subject's key is read once.
    public func openBytes(_ values: [SealedPersonalData]) async throws -> [Data?] {
        var keys: [String: SymmetricKey?] = [:]
        var opened: [Data?] = []
        opened.reserveCapacity(values.count)
        for value in values {
            let key: SymmetricKey?
            if let known = keys[value.subject] {
                key = known
            } else {
                key = try await self.keys.keyForOpening(value.subject)
                keys[value.subject] = .some(key)
            }
            guard let key else {
                opened.append(nil)
                continue
            }
            opened.append(try Self.open(value, with: key))
        }
        return opened
    }

    /// Erases the subject: every value sealed for them becomes unreadable, in every copy.
    public func erase(_ subject: String) async throws {
        try await keys.erase(subject)
    }
}
