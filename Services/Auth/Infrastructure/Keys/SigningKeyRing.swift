import Contracts
import _CryptoExtras
import EventSourcing
import Foundation
import JWTKit
import Logging
import NIOPosix
import ServiceKit

/// The RSA keys that sign access tokens (RS256): which one signs now, and which public keys are published.
///
/// Keys live in the service's own database through a ``SigningKeyStorage`` (private keys as PEM, see
/// ``StoredSigningKey``), so they survive restarts and every instance of `auth` uses the same ones.
///
/// **Which key signs.** The newest key that is not retired, by `createdAt` (ties broken by `kid`), as seen by the
/// last load. ``start()`` creates a key when none may sign; ``rotate()`` creates one and retires the older ones.
/// Both insert first, then reload and converge: they pick the newest non-retired key and retire every older
/// non-retired key. So when two instances start (or rotate) at once, whichever of them sees both new keys retires
/// the older one, and both end up signing with the newer one — at the latest after the other instance's next reload.
///
/// **Reloading.** A ring reloads from storage on ``reload()``, and on its own in the background when
/// ``signingKey()`` or ``publishedKeySet()`` is called more than ``reloadInterval`` (default 30 s) after the last
/// load. That interval must stay below ``leeway``: an instance keeps signing with a key another instance retired
/// until it reloads, and such tokens stay verifiable only if the key is still published when they expire. A JWKS
/// handler that wants the freshest view may `try await reload()` before ``publishedKeySet()``.
///
/// **Publication.** The JWK Set holds every non-retired key and each retired key until
/// `retiredAt + tokenLifetime + leeway`: by then every token it signed has expired, even allowing for clock skew.
/// Retired keys stay in storage; they are simply no longer published or used.
public actor SigningKeyRing {
    /// Longest lifetime of the tokens signed with these keys (default 15 min); retired keys stay published this long.
    public nonisolated let tokenLifetime: Duration
    /// Clock skew verifiers tolerate (default 60 s); retired keys stay published this much longer.
    public nonisolated let leeway: Duration
    /// Size of new RSA keys (default 2048 bits; JWTKit refuses smaller keys).
    public nonisolated let keySize: _RSA.Signing.KeySize
    /// Age of the loaded keys after which a background reload starts (default 30 s; keep it below ``leeway``).
    public nonisolated let reloadInterval: Duration

    private let storage: any SigningKeyStorage
    private let now: @Sendable () -> Date
    private let logger: Logger

    /// Keys that may sign or are published (parsed once, reused across reloads), by `kid`.
    private var keys: [String: LoadedKey] = [:]
    private var currentKeyID: String?
    private var lastLoad: ContinuousClock.Instant?
    private var backgroundReload: Task<Void, Never>?

    private struct LoadedKey {
        let stored: StoredSigningKey
        let privateKey: _RSA.Signing.PrivateKey
        let publicKey: JSONWebKey
    }

    /// Creates a ring over `storage`; nothing is loaded until ``start()``.
    public init(
        storage: some SigningKeyStorage,
        tokenLifetime: Duration = .seconds(900),
        leeway: Duration = .seconds(60),
        keySize: _RSA.Signing.KeySize = .bits2048,
        reloadInterval: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger = Logger(label: "waypoint.auth.signing-keys")
    ) {
        self.storage = storage
        self.tokenLifetime = tokenLifetime
        self.leeway = leeway
        self.keySize = keySize
        self.reloadInterval = reloadInterval
        self.now = now
        self.logger = logger
    }

    /// Loads the stored keys and creates the first one when no key may sign.
    public func start() async throws {
        let stored = try await storage.loadAll()
        if stored.contains(where: { $0.retiredAt == nil }) {
            try await converge(loaded: stored)
        } else {
            let kid = try await createKey()
            logger.notice("created an access-token signing key at start", metadata: [
                "kid": .string(kid), "signing_kid": .string(currentKeyID ?? "-"),
            ])
        }
    }

    /// Creates a new key that signs from now on and retires the keys that signed before; returns the new `kid`.
    ///
    /// Tokens signed by the retired keys keep verifying: their public keys stay published for ``tokenLifetime``
    /// plus ``leeway``. Other instances switch to the new key on their next reload.
    @discardableResult
    public func rotate() async throws -> String {
        let previous = currentKeyID
        let kid = try await createKey()
        logger.notice("rotated the access-token signing key", metadata: ["kid": .string(kid), "previous_kid": .string(previous ?? "-")])
        return kid
    }

    /// Reloads the keys from storage, picking up a rotation done by another instance or a command.
    public func reload() async throws {
        try apply(try await storage.loadAll())
    }

    /// The key that signs now and its `kid`.
    ///
    /// - Throws: ``SigningKeyRingError/noActiveKey`` before ``start()`` or when every stored key is retired.
    public func signingKey() throws -> (kid: String, key: _RSA.Signing.PrivateKey) {
        reloadInBackgroundIfStale()
        guard let currentKeyID, let key = keys[currentKeyID] else { throw SigningKeyRingError.noActiveKey }
        return (currentKeyID, key.privateKey)
    }

    /// The `kid` of the key that signs now, if any.
    public var currentKid: String? { currentKeyID }

    /// The JWK Set to publish: every non-retired key and the retired keys whose tokens may still be valid
    /// (`retiredAt + tokenLifetime + leeway > now`), newest first, as RS256 signature keys.
    public func publishedKeySet() -> JSONWebKeySet {
        reloadInBackgroundIfStale()
        let now = now()
        let published = keys.values
            .filter { isPublished($0.stored, at: now) }
            .sorted { $0.stored.isNewer(than: $1.stored) }
        return JSONWebKeySet(keys: published.map(\.publicKey))
    }

    // MARK: - Creating and converging

    /// Generates a key, stores it as the newest one, then converges; returns the new key's `kid`.
    private func createKey() async throws -> String {
        let keySize = keySize
        // RSA key generation takes 50 ms to seconds of CPU: keep it off the cooperative pool.
        let privateKey = try await NIOThreadPool.singleton.runIfActive { try _RSA.Signing.PrivateKey(keySize: keySize) }
        let existing = try await storage.loadAll()
        // Strictly newer than every stored key, even with a coarse or injected clock.
        var createdAt = roundedNow()
        if let newest = existing.map(\.createdAt).max(), createdAt <= newest {
            createdAt = Date(microsecondsSince1970: newest.microsecondsSince1970 + 1)
        }
        let key = StoredSigningKey(kid: KeyIdentifiers.random(), privateKeyPEM: privateKey.pemRepresentation, createdAt: createdAt)
        try await storage.insert(key)
        try await converge(loaded: try await storage.loadAll())
        return key.kid
    }

    /// Retires every non-retired key older than the newest non-retired one, then applies the stored state.
    private func converge(loaded: [StoredSigningKey]) async throws {
        let active = loaded.filter { $0.retiredAt == nil }
        guard let newest = active.max(by: { $1.isNewer(than: $0) }) else {
            try apply(loaded)
            return
        }
        let older = active.filter { newest.isNewer(than: $0) }
        guard !older.isEmpty else {
            try apply(loaded)
            return
        }
        let retiredAt = roundedNow()
        for key in older {
            try await storage.markRetired(kid: key.kid, at: retiredAt)
            logger.info("retired access-token signing key", metadata: ["kid": .string(key.kid), "successor_kid": .string(newest.kid)])
        }
        // Reload: another instance may have retired some of them first, with an earlier time.
        try apply(try await storage.loadAll())
    }

    // MARK: - Loading

    /// Replaces the in-memory state with `stored`, parsing only keys not parsed before.
    ///
    /// - Throws: ``SigningKeyRingError/unreadableKey(kid:)`` when the key that should sign is unusable (the previous
    ///   state stays); other unusable keys are logged and left out of the key set.
    private func apply(_ stored: [StoredSigningKey]) throws {
        let now = now()
        let current = stored.filter { $0.retiredAt == nil }.max(by: { $1.isNewer(than: $0) })
        var loaded: [String: LoadedKey] = [:]
        for key in stored where isPublished(key, at: now) {
            if let known = keys[key.kid], known.stored.privateKeyPEM == key.privateKeyPEM {
                loaded[key.kid] = LoadedKey(stored: key, privateKey: known.privateKey, publicKey: known.publicKey)
                continue
            }
            do {
                loaded[key.kid] = try parse(key)
            } catch {
                logger.error("unreadable access-token signing key", metadata: [
                    "kid": .string(key.kid), "error": .string(String(describing: error)),
                ])
                if key.kid == current?.kid { throw SigningKeyRingError.unreadableKey(kid: key.kid) }
            }
        }
        keys = loaded
        currentKeyID = current?.kid
        lastLoad = .now
    }

    private func parse(_ key: StoredSigningKey) throws -> LoadedKey {
        let privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: key.privateKeyPEM)
        let publicKey = try JSONWebKey(rs256: Insecure.RSA.PublicKey(backing: privateKey.publicKey), keyID: key.kid)
        return LoadedKey(stored: key, privateKey: privateKey, publicKey: publicKey)
    }

    private func isPublished(_ key: StoredSigningKey, at now: Date) -> Bool {
        guard let retiredAt = key.retiredAt else { return true }
        return retiredAt.addingTimeInterval((tokenLifetime + leeway).timeInterval) > now
    }

    private func reloadInBackgroundIfStale() {
        guard backgroundReload == nil, let lastLoad, ContinuousClock.now - lastLoad >= reloadInterval else { return }
        backgroundReload = Task {
            do {
                try await self.reload()
            } catch {
                self.lastLoad = .now  // retry after another interval, keep signing meanwhile
                self.logger.warning("reloading access-token signing keys failed", metadata: ["error": .string(String(describing: error))])
            }
            self.backgroundReload = nil
        }
    }

    private func roundedNow() -> Date {
        Date(microsecondsSince1970: now().microsecondsSince1970)
    }
}
