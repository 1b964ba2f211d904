import CryptoExtras
import Foundation
import JWTKit
import ServiceKit

/// An RS256 key pair for forging access tokens in tests.
struct TestSigningKey: Sendable {
    let kid: String
    let privateKey: JWTKit.Insecure.RSA.PrivateKey

    /// A fresh 2048-bit key generated with CryptoExtras.
    init(kid: String) throws {
        self.kid = kid
        self.privateKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    var publicKey: JWTKit.Insecure.RSA.PublicKey { privateKey.publicKey }

    /// This key as a JWK Set entry.
    var jwk: JSONWebKey { try! JSONWebKey(rs256: publicKey, keyID: kid) }

    /// A token with `claims`, signed RS256 with this key and `kid` in the header.
    func sign(_ claims: AccessTokenClaims) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// Keys are slow to generate, so the suites share two.
    static let primary = try! TestSigningKey(kid: "key-2025-01")
    static let rotated = try! TestSigningKey(kid: "key-2025-02")
}
