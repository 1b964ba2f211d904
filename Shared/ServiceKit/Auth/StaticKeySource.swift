import JWTKit

/// A fixed set of RS256 public keys by `kid`, for tests and for services given keys at start-up.
public struct StaticKeySource: AccessTokenKeySource {
    /// The keys by `kid`.
    public let keys: [String: Insecure.RSA.PublicKey]
    private let held: [String: AccessTokenKey]

    /// Creates a key source from keys by `kid`.
    public init(keys: [String: Insecure.RSA.PublicKey]) {
        self.keys = keys
        held = keys.mapValues(AccessTokenKey.init)
    }

    /// Creates a key source from the RS256 entries of a JWK Set.
    public init(keySet: JSONWebKeySet) {
        self.init(keys: keySet.rs256PublicKeys())
    }

    /// The key with `kid`, if present: a fixed set answers at once.
    public func heldKey(for kid: String) -> AccessTokenKey? {
        held[kid]
    }

    /// The key with `kid`, if present.
    public func publicKey(for kid: String) async throws -> Insecure.RSA.PublicKey? {
        keys[kid]
    }
}
