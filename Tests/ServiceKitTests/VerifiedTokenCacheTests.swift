import Foundation
import JWTKit
import ServiceKit
import ServiceTesting
import Synchronization
import Testing

/// A clock the test moves.
private final class TestClock: Sendable {
    private let current = Mutex(Date())
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Keys a test can remove.
private final class MutableKeySource: AccessTokenKeySource {
    private let keys = Mutex<[String: Insecure.RSA.PublicKey]>([TestSigningKey.primary.kid: TestSigningKey.primary.publicKey])
    func publicKey(for kid: String) async throws -> Insecure.RSA.PublicKey? { keys.withLock { $0[kid] } }
    func remove(_ kid: String) { _ = keys.withLock { $0.removeValue(forKey: kid) } }
}

@Suite("Access tokens: the verified-token cache")
struct VerifiedTokenCacheTests {
    @Test("a repeated token is answered from the cache with the same identity")
    func repeated() async throws {
        let verifier = AccessTokenVerifier(keys: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                                           issuer: TokenForge.issuer, audience: TokenForge.audience)
        let token = try await TokenForge.valid(role: .guide)
        let first = try await verifier.verify(token)
        #expect(verifier.cachedTokens == 1)
        let second = try await verifier.verify(token)
        #expect(second == first)
        #expect(verifier.cachedTokens == 1)
    }

    @Test("a cached token is refused once it expires (beyond the leeway)")
    func expires() async throws {
        let clock = TestClock()
        let verifier = AccessTokenVerifier(keys: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                                           issuer: TokenForge.issuer, audience: TokenForge.audience, now: { clock.now })
        let token = try await TestSigningKey.primary.sign(TokenForge.claims(issuedAt: clock.now, expiresAt: clock.now.addingTimeInterval(120)))
        _ = try await verifier.verify(token)
        #expect(verifier.cachedTokens == 1)
        clock.advance(150)  // past exp, within the 60 s leeway
        _ = try await verifier.verify(token)
        clock.advance(60)  // past exp + leeway
        await #expect(throws: AccessTokenError.expired) { try await verifier.verify(token) }
    }

    @Test("a cached token of a session revoked afterwards is refused")
    func revoked() async throws {
        let revocations = RevokedSessions()
        let verifier = AccessTokenVerifier(keys: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                                           issuer: TokenForge.issuer, audience: TokenForge.audience, revokedSessions: revocations)
        let token = try await TokenForge.valid()
        _ = try await verifier.verify(token)
        _ = revocations.revoke(sessionId: "session-7", revokedAt: Date())
        await #expect(throws: AccessTokenError.sessionRevoked) { try await verifier.verify(token) }
        // A revoked token is never remembered.
        let other = RevokedSessions()
        _ = other.revoke(sessionId: "session-7", revokedAt: Date())
        let refusing = AccessTokenVerifier(keys: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                                           issuer: TokenForge.issuer, audience: TokenForge.audience, revokedSessions: other)
        await #expect(throws: AccessTokenError.sessionRevoked) { try await refusing.verify(token) }
        #expect(refusing.cachedTokens == 0)
    }

    @Test("a cached token whose key left the key set is refused")
    func keyRemoved() async throws {
        let keys = MutableKeySource()
        let verifier = AccessTokenVerifier(keys: keys, issuer: TokenForge.issuer, audience: TokenForge.audience)
        let token = try await TokenForge.valid()
        _ = try await verifier.verify(token)
        keys.remove(TestSigningKey.primary.kid)
        await #expect(throws: AccessTokenError.unknownKeyID(TestSigningKey.primary.kid)) { try await verifier.verify(token) }
        #expect(verifier.cachedTokens == 0)
    }

    @Test("a token tampered after a valid one verified is refused (the cache is keyed by the whole string)")
    func tampered() async throws {
        let verifier = AccessTokenVerifier(keys: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                                           issuer: TokenForge.issuer, audience: TokenForge.audience)
        let token = try await TokenForge.valid()
        _ = try await verifier.verify(token)
        let forged = try TokenForge.tampered(token, with: TokenForge.claims(role: .admin))
        await #expect(throws: AccessTokenError.invalidSignatureOrClaims) { try await verifier.verify(forged) }
    }

    @Test("the cache holds at most its capacity; capacity 0 remembers nothing")
    func bounded() async throws {
        let keys = StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey])
        let verifier = AccessTokenVerifier(keys: keys, issuer: TokenForge.issuer, audience: TokenForge.audience, cacheCapacity: 3)
        for index in 0..<10 {
            let token = try await TokenForge.token("user-\(index)")
            #expect(try await verifier.verify(token).subject == "user-\(index)")
            #expect(verifier.cachedTokens <= 3)
        }
        let uncached = AccessTokenVerifier(keys: keys, issuer: TokenForge.issuer, audience: TokenForge.audience, cacheCapacity: 0)
        _ = try await uncached.verify(try await TokenForge.valid())
        #expect(uncached.cachedTokens == 0)
    }
}

/// A source that holds a key at once (``AccessTokenKeySource/heldKey(for:)``) that a test can swap for another under the
/// same `kid`, and counts the lookups that had to wait.
private final class HeldKeySource: AccessTokenKeySource {
    private let key = Mutex<Insecure.RSA.PublicKey?>(TestSigningKey.primary.publicKey)
    let waitedLookups = Atomic(0)
    func publicKey(for kid: String) async throws -> Insecure.RSA.PublicKey? {
        waitedLookups.add(1, ordering: .relaxed)
        return kid == TestSigningKey.primary.kid ? key.withLock { $0 } : nil
    }
    func heldKey(for kid: String) -> AccessTokenKey? {
        kid == TestSigningKey.primary.kid ? key.withLock { $0 }.map(AccessTokenKey.init) : nil
    }
    func replace(with other: Insecure.RSA.PublicKey?) { key.withLock { $0 = other } }
}

@Suite("Access tokens: the verified-token cache against a source that holds its keys")
struct HeldKeyTests {
    @Test("a remembered token is checked against the held key without waiting on the source; another key under its kid refuses it")
    func heldKey() async throws {
        let source = HeldKeySource()
        let verifier = AccessTokenVerifier(keys: source, issuer: TokenForge.issuer, audience: TokenForge.audience)
        let token = try await TokenForge.valid(role: .guide)
        _ = try await verifier.verify(token)
        let waited = source.waitedLookups.load(ordering: .relaxed)
        for _ in 0..<5 { _ = try await verifier.verify(token) }
        #expect(source.waitedLookups.load(ordering: .relaxed) == waited)
        // The kid now names another key: the remembered token is refused, as without the cache.
        source.replace(with: TestSigningKey.rotated.publicKey)
        await #expect(throws: AccessTokenError.self) { try await verifier.verify(token) }
        #expect(verifier.cachedTokens == 0)
        // And with no key under the kid at all.
        source.replace(with: TestSigningKey.primary.publicKey)
        _ = try await verifier.verify(token)
        source.replace(with: nil)
        await #expect(throws: AccessTokenError.self) { try await verifier.verify(token) }
    }

    @Test("StaticKeySource holds its keys; JWKSProvider holds none before its first fetch")
    func sources() async {
        let source = StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey])
        #expect(source.heldKey(for: TestSigningKey.primary.kid)?.der == TestSigningKey.primary.publicKey.derRepresentation)
        #expect(source.heldKey(for: "other") == nil)
        let provider = JWKSProvider(url: "http://127.0.0.1:9/.well-known/jwks.json")
        #expect(provider.heldKey(for: TestSigningKey.primary.kid) == nil)
    }
}
