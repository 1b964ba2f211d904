import JWTKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where ``AccessTokenVerifier`` finds the public key named by a token's `kid`.
///
/// Production uses ``JWKSProvider`` (fetches `auth`'s JWKS); tests use ``StaticKeySource``.
public protocol AccessTokenKeySource: Sendable {
    /// The RS256 public key with `kid`, or `nil` when the key set has no such key.
    ///
    /// - Throws: ``AccessTokenError/keysUnavailable`` when the key set cannot be obtained at all.
    func publicKey(for kid: String) async throws -> Insecure.RSA.PublicKey?

    /// The key with `kid` as the source holds it now, when it can answer at once and would answer ``publicKey(for:)``
    /// with the same key (nothing to fetch or refresh); `nil` otherwise, and the verifier asks ``publicKey(for:)``.
    /// The per-request check of a remembered token ("its `kid` still names the key it verified under") then costs a
    /// comparison of bytes — no suspension, no DER encoding. The default holds nothing.
    func heldKey(for kid: String) -> AccessTokenKey?
}

extension AccessTokenKeySource {
    public func heldKey(for kid: String) -> AccessTokenKey? { nil }
}

/// A public key with its DER encoding, computed once: two keys are the same key when their DER bytes are equal (what
/// jwt-kit's `==` computes, encoding both keys on every call).
public struct AccessTokenKey: Sendable {
    public let key: Insecure.RSA.PublicKey
    public let der: Data

    public init(_ key: Insecure.RSA.PublicKey) {
        self.key = key
        der = key.derRepresentation
    }
}
