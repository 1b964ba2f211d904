import Crypto
import EventSourcing
import Foundation
import GRDB
import Messaging
import PostgresNIO
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
    public static func load(_ storage: ServiceStorage) async throws -> BundleSigningKey {
        let fresh = Curve25519.Signing.PrivateKey()
        let encoded = Base64URL.encode(fresh.rawRepresentation)
        let stored: String
        if let sqlite = storage.sqlite {
            stored = try await sqlite.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS bundle_signing_keys (key_id TEXT PRIMARY KEY, private_key TEXT NOT NULL, created_at DATETIME NOT NULL)
                    """)
                if let existing = try String.fetchOne(db, sql: "SELECT private_key FROM bundle_signing_keys ORDER BY created_at, key_id LIMIT 1") {
                    return existing
                }
                try db.execute(sql: "INSERT INTO bundle_signing_keys (key_id, private_key, created_at) VALUES (?, ?, ?)",
                               arguments: [keyId(fresh.publicKey), encoded, Date()])
                return encoded
            }
        } else {
            let database = storage.postgres!
            try await database.createSchemaIfNeeded()
            try await database.client.query("""
                CREATE TABLE IF NOT EXISTS bundle_signing_keys (key_id text PRIMARY KEY, private_key text NOT NULL, created_at timestamptz NOT NULL)
                """, logger: database.logger)
            try await database.client.query("""
                INSERT INTO bundle_signing_keys (key_id, private_key, created_at)
                SELECT \(keyId(fresh.publicKey)), \(encoded), now() WHERE NOT EXISTS (SELECT 1 FROM bundle_signing_keys)
                """, logger: database.logger)
            var found: String?
            for try await (key) in try await database.client.query(
                "SELECT private_key FROM bundle_signing_keys ORDER BY created_at, key_id LIMIT 1", logger: database.logger).decode(String.self) {
                found = key
            }
            stored = found ?? encoded
        }
        guard let raw = Base64URL.decode(stored), let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw ConfigurationError(key: "bundle_signing_keys", value: "unreadable", expected: "a 32-byte Ed25519 private key")
        }
        return BundleSigningKey(privateKey: key)
    }
}
