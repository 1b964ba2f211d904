/// A personal field (email, name, address…) encrypted with its subject's key, as stored inside event payloads.
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

/// Why personal data could not be sealed or opened.
public enum PersonalDataError: Error, Sendable, Hashable {
    /// The subject's key was erased: nothing new may be sealed for them.
    case subjectErased(String)
    /// The stored ciphertext or key is damaged or was sealed with another key.
    case corrupted(String)
}
