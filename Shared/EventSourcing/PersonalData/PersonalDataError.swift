/// Why personal data could not be sealed or opened.
public enum PersonalDataError: Error, Sendable, Hashable {
    /// The subject's key was erased: nothing new may be sealed for them.
    case subjectErased(String)
    /// The stored ciphertext or key is damaged or was sealed with another key.
    case corrupted(String)
}
