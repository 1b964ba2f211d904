/// Why ``SigningKeyRing`` cannot sign.
public enum SigningKeyRingError: Error, Sendable, Hashable {
    /// No key may sign: ``SigningKeyRing/start()`` has not run, or every stored key is retired.
    case noActiveKey
    /// A stored key's PEM is not a usable RSA private key (at least 2048 bits).
    case unreadableKey(kid: String)
}
