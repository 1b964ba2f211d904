import Crypto
import EventSourcing
import Foundation
import ServiceKit

/// The Ed25519 key that signs bundle manifests, kept in the service's database (table `bundle_signing_keys`) so every
/// instance and every restart signs with the same key; created on first start. The key id is the first 16 hex digits of
/// the SHA-256 of the public key.
public struct BundleSigningKey: Sendable {
    public let keyId: String
    let privateKey: Curve25519.Signing.PrivateKey

    public init(privateKey: Curve25519.Signing.PrivateKey) {
        self.privateKey = privateKey
        keyId = Self.keyId(privateKey.publicKey)
    }

    static func keyId(_ key: Curve25519.Signing.PublicKey) -> String {
        SHA256.hash(data: key.rawRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    public var publicKey: BundlePublicKey { BundlePublicKey(keyId: keyId, publicKey: privateKey.publicKey) }

    /// The manifest with its signature.
    public func sign(_ manifest: BundleManifest) throws -> SignedBundleManifest {
        let signature = try privateKey.signature(for: manifest.canonicalBytes)
        return SignedBundleManifest(manifest: manifest, keyId: keyId, signature: Base64URL.encode(signature))
    }

    /// The stored key (the oldest, should several instances have raced on first start), created when there is none.
    public static func load(_ store: some BundleSigningKeyStore) async throws -> BundleSigningKey {
        let fresh = Curve25519.Signing.PrivateKey()
        let stored = try await store.oldestKey(insertingIfNone: Base64URL.encode(fresh.rawRepresentation), keyId: keyId(fresh.publicKey))
        guard let raw = Base64URL.decode(stored), let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw ConfigurationError(key: "bundle_signing_keys", value: "unreadable", expected: "a 32-byte Ed25519 private key")
        }
        return BundleSigningKey(privateKey: key)
    }
}
