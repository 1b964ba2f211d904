import _CryptoExtras
import Foundation
import JWTKit
import ServiceKit

/// An RS256 key pair for forging access tokens in tests.
public struct TestSigningKey: Sendable {
    public let kid: String
    public let privateKey: JWTKit.Insecure.RSA.PrivateKey

    /// A fresh 2048-bit key generated with CryptoExtras.
    public init(kid: String) throws {
        self.kid = kid
        self.privateKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// An existing key (for example the one a service's key ring signs with), to forge tokens it would accept.
    public init(kid: String, backing key: _RSA.Signing.PrivateKey) throws {
        self.kid = kid
        self.privateKey = try JWTKit.Insecure.RSA.PrivateKey(backing: key)
    }

    public var publicKey: JWTKit.Insecure.RSA.PublicKey { privateKey.publicKey }

    /// This key as a JWK Set entry.
    public var jwk: JSONWebKey { try! JSONWebKey(rs256: publicKey, keyID: kid) }

    /// A token with any JWT `payload` (an OpenID Connect ID token, say), signed RS256 with this key and `kid`.
    public func sign(payload: some JWTPayload) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await keys.sign(payload, kid: JWKIdentifier(string: kid))
    }

    /// A token with `claims`, signed RS256 with this key and `kid` in the header.
    public func sign(_ claims: AccessTokenClaims) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// Keys are slow to generate, so the suites share two.
    public static let primary = try! TestSigningKey(kid: "key-2025-01")
    public static let rotated = try! TestSigningKey(kid: "key-2025-02")
}
