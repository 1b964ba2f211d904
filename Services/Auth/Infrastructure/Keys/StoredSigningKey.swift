import Foundation

/// One token-signing key as the service's database keeps it.
///
/// The private key is stored **unencrypted, as PEM, in the service's own database** (table `auth_signing_keys`):
/// keys must survive restarts and be shared by every instance of `auth`, and whoever can read that database can
/// already forge every fact `auth` knows. Protect the database (and its backups) accordingly.
public struct StoredSigningKey: Sendable, Codable, Hashable {
    /// Key id (`kid`): 16 random bytes, base64url.
    public var kid: String
    /// The RSA private key, PEM.
    public var privateKeyPEM: String
    /// When the key was created.
    public var createdAt: Date
    /// When a newer key took over signing; `nil` while the key may still sign.
    public var retiredAt: Date?

    /// Creates a stored key.
    public init(kid: String, privateKeyPEM: String, createdAt: Date, retiredAt: Date? = nil) {
        self.kid = kid
        self.privateKeyPEM = privateKeyPEM
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }

    /// Whether this key is newer than `other`: later `createdAt`, ties broken by `kid`, so every instance agrees.
    func isNewer(than other: StoredSigningKey) -> Bool {
        (createdAt, kid) > (other.createdAt, other.kid)
    }
}

/// Where ``SigningKeyRing`` keeps its keys: the service's own database, so that they survive restarts and every
/// instance signs with (and publishes) the same keys.
public protocol SigningKeyStorage: Sendable {
    /// Every stored key, retired ones included, in any order.
    func loadAll() async throws -> [StoredSigningKey]
    /// Adds a key; a duplicate `kid` is an error.
    func insert(_ key: StoredSigningKey) async throws
    /// Records that `kid` stopped signing at `at`; a key already retired keeps its first retirement time.
    func markRetired(kid: String, at: Date) async throws
}
