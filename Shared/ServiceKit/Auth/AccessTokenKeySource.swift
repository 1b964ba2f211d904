import JWTKit

/// Where ``AccessTokenVerifier`` finds the public key named by a token's `kid`.
///
/// Production uses ``JWKSProvider`` (fetches `auth`'s JWKS); tests use ``StaticKeySource``.
public protocol AccessTokenKeySource: Sendable {
    /// The RS256 public key with `kid`, or `nil` when the key set has no such key.
    ///
    /// - Throws: ``AccessTokenError/keysUnavailable`` when the key set cannot be obtained at all.
    func publicKey(for kid: String) async throws -> Insecure.RSA.PublicKey?
}
