/// Why ``PasswordHasher`` could not be created or could not hash a password.
public enum PasswordHasherError: Error, Sendable, Hashable {
    /// The bcrypt cost is outside ``PasswordHasher/allowedCosts`` (new hashes need at least 10).
    case invalidCost(Int)
    /// `maximumConcurrency` is below 1.
    case invalidConcurrency(Int)
    /// The password contains a NUL character, which the C interface of `crypt` cannot carry.
    case passwordContainsNUL
    /// libxcrypt refused to produce a salt or a hash (e.g. a password longer than it accepts).
    case hashingFailed
    /// ``PasswordHasher/shutdown()`` was called; no more hashing is possible.
    case shutDown
}
