import Crypto
import Foundation

/// Per-subject data keys. Erasing a subject's key is permanent: the subject stays known as erased, so no new data can be
/// sealed for them by mistake.
public protocol PersonalDataKeyStore: Sendable {
    /// The subject's key, created on first use; throws ``PersonalDataError/subjectErased(_:)`` after erasure.
    func keyForSealing(_ subject: String) async throws -> SymmetricKey
    /// The subject's key, or `nil` when it was erased or never created.
    func keyForOpening(_ subject: String) async throws -> SymmetricKey?
    /// Destroys the subject's key.
    func erase(_ subject: String) async throws
}

/// Wraps data keys at rest with an operator-held key-encryption key, so a copied database alone reveals nothing.
struct KeyWrapper: Sendable {
    let keyEncryptionKey: SymmetricKey?

    func wrap(_ key: SymmetricKey) throws -> Data {
        let raw = key.withUnsafeBytes { Data($0) }
        guard let keyEncryptionKey else { return raw }
        guard let combined = try AES.GCM.seal(raw, using: keyEncryptionKey).combined else {
            throw PersonalDataError.corrupted("cannot wrap key")
        }
        return combined
    }

    func unwrap(_ stored: Data, subject: String) throws -> SymmetricKey {
        guard let keyEncryptionKey else { return SymmetricKey(data: stored) }
        do {
            return SymmetricKey(data: try AES.GCM.open(AES.GCM.SealedBox(combined: stored), using: keyEncryptionKey))
        } catch {
            throw PersonalDataError.corrupted("key of \(subject) does not open with the configured key-encryption key")
        }
    }
}
