/// A personal field (email, name, address…) encrypted with its subject's key, as carried inside event payloads.
///
/// Sealed and opened by `EventSourcing.PersonalDataCipher`; it lives here because published events carry it.
///
/// Once the subject's key is erased, every copy of this value — in the log, in snapshots, on topics — is unreadable:
/// that is how an append-only log forgets a person (crypto-shredding).
public struct SealedPersonalData: Codable, Sendable, Hashable {
    /// Whose key sealed it (usually the user id).
    public var subject: String
    /// AES-256-GCM nonce, ciphertext and tag, base64.
    public var sealed: String

    /// Creates a sealed value.
    public init(subject: String, sealed: String) {
        self.subject = subject
        self.sealed = sealed
    }
}

