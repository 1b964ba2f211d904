import _CryptoExtras
@testable import AuthInfrastructure
import EventSourcing
import Foundation
import JWTKit
import PostgresNIO
import ServiceKit
import ServiceTesting
import Synchronization
import Testing

@Suite("SigningKey")
struct SigningKeyTests {
    private static let issuer = "waypoint-auth"
    private static let audience = "waypoint"

    @Test("the first start creates one key and a restarted ring loads the same key", arguments: TestBackend.enabled)
    func firstStartAndRestart(backend: TestBackend) async throws {
        try await backend.withStorage { makeStorage in
            let storage = try await makeStorage()
            let ring = SigningKeyRing(storage: storage)
            try await ring.start()
            let stored = try await storage.loadAll()
            #expect(stored.count == 1)
            #expect(stored.first?.retiredAt == nil)
            #expect(stored.first?.privateKeyPEM.contains("PRIVATE KEY") == true)
            let kid = try #require(await ring.currentKid)
            #expect(stored.first?.kid == kid)
            #expect(kid.count == 22)

            let restarted = SigningKeyRing(storage: try await makeStorage())
            try await restarted.start()
            #expect(await restarted.currentKid == kid)
            #expect(try await makeStorage().loadAll().count == 1)
            #expect(await restarted.publishedKeySet() == ring.publishedKeySet())
            let (_, key) = try await restarted.signingKey()
            #expect(key.keySizeInBits == 2048)
        }
    }

    @Test("an issued token verifies with ServiceKit's AccessTokenVerifier and carries the claims")
    func issuedTokenVerifies() async throws {
        try await TestBackend.sqlite.withStorage { makeStorage in
            let clock = TestClock(Date(timeIntervalSince1970: 1_750_000_000.75))
            let ring = SigningKeyRing(storage: try await makeStorage(), now: clock.read)
            try await ring.start()
            let issuer = AccessTokenIssuer(keyRing: ring, issuer: Self.issuer, audience: Self.audience, now: clock.read)
            let issued = try await issuer.issue(subject: "user-42", role: .guide, sessionId: "session-7")
            #expect(issued.expiresAt == Date(timeIntervalSince1970: 1_750_000_900))

            let keySet = await ring.publishedKeySet()
            let identity = try await Self.verifier(keySet, clock).verify(issued.token)
            #expect(identity.subject == "user-42")
            #expect(identity.role == .guide)
            #expect(identity.sessionId == "session-7")
            #expect(identity.tokenId == issued.tokenId)
            #expect(identity.expiresAt == issued.expiresAt)

            let header = try Self.json(segment: 0, of: issued.token)
            #expect(header["alg"] as? String == "RS256")
            #expect(header["typ"] as? String == "JWT")
            #expect(header["kid"] as? String == (await ring.currentKid))
            let payload = try Self.json(segment: 1, of: issued.token)
            #expect(payload["iss"] as? String == Self.issuer)
            #expect(payload["iat"] as? Int == 1_750_000_000)
            #expect(payload["exp"] as? Int == 1_750_000_900)
            #expect(Set(payload.keys) == ["sub", "role", "sid", "jti", "iss", "aud", "iat", "exp"])

            let jwk = try #require(keySet.keys.first)
            #expect(keySet.keys.count == 1)
            #expect(jwk.keyType == "RSA")
            #expect(jwk.algorithm == "RS256")
            #expect(jwk.use == "sig")
            #expect(jwk.keyID == (await ring.currentKid))
            #expect(jwk.exponent == "AQAB")
            #expect(jwk.modulus?.contains("=") == false)

            // Two tokens never share an id; the token expires after its lifetime.
            let second = try await issuer.issue(subject: "user-42", role: .guide, sessionId: "session-7")
            #expect(second.tokenId != issued.tokenId)
            clock.advance(by: 900 + 61)
            await #expect(throws: AccessTokenError.expired) { try await Self.verifier(keySet, clock).verify(issued.token) }
        }
    }

    @Test("after a rotation the new key signs, the old key stays published and its tokens still verify",
        arguments: TestBackend.enabled)
    func rotation(backend: TestBackend) async throws {
        try await backend.withStorage { makeStorage in
            let clock = TestClock(Date(timeIntervalSince1970: 1_750_000_000))
            let ring = SigningKeyRing(storage: try await makeStorage(), now: clock.read)
            try await ring.start()
            let issuer = AccessTokenIssuer(keyRing: ring, issuer: Self.issuer, audience: Self.audience, now: clock.read)
            let oldKid = try #require(await ring.currentKid)
            let oldToken = try await issuer.issue(subject: "u1", role: .traveller, sessionId: "s1")

            clock.advance(by: 10)
            let newKid = try await ring.rotate()
            #expect(newKid != oldKid)
            #expect(await ring.currentKid == newKid)
            let newToken = try await issuer.issue(subject: "u1", role: .traveller, sessionId: "s1")
            #expect(try Self.json(segment: 0, of: newToken.token)["kid"] as? String == newKid)

            let keySet = await ring.publishedKeySet()
            #expect(keySet.keys.compactMap(\.keyID) == [newKid, oldKid])
            let verifier = Self.verifier(keySet, clock)
            #expect(try await verifier.verify(oldToken.token).subject == "u1")
            #expect(try await verifier.verify(newToken.token).subject == "u1")

            let stored = try await makeStorage().loadAll()
            #expect(stored.first { $0.kid == oldKid }?.retiredAt == Date(timeIntervalSince1970: 1_750_000_010))
            #expect(stored.first { $0.kid == newKid }?.retiredAt == nil)

            // Another instance picks the rotation up on reload (and on start).
            let other = SigningKeyRing(storage: try await makeStorage(), now: clock.read)
            try await other.start()
            #expect(await other.currentKid == newKid)
            let third = try await ring.rotate()
            #expect(await other.currentKid == newKid)
            try await other.reload()
            #expect(await other.currentKid == third)
            #expect(await other.publishedKeySet().keys.compactMap(\.keyID) == [third, newKid, oldKid])
        }
    }

    @Test("a retired key leaves the key set once every token it signed has expired")
    func retiredKeyExpires() async throws {
        try await TestBackend.sqlite.withStorage { makeStorage in
            let clock = TestClock(Date(timeIntervalSince1970: 1_750_000_000))
            let ring = SigningKeyRing(storage: try await makeStorage(), tokenLifetime: .seconds(900), leeway: .seconds(60), now: clock.read)
            try await ring.start()
            let issuer = AccessTokenIssuer(keyRing: ring, issuer: Self.issuer, audience: Self.audience, now: clock.read)
            let oldKid = try #require(await ring.currentKid)
            let oldToken = try await issuer.issue(subject: "u1", role: .admin, sessionId: "s1")
            try await ring.rotate()  // retired at 1_750_000_000

            clock.advance(by: 959)  // retiredAt + lifetime + leeway - 1 s
            #expect(await ring.publishedKeySet().keys.contains { $0.keyID == oldKid })
            // A token signed just before the retirement is still accepted at its expiry plus leeway.
            clock.set(Date(timeIntervalSince1970: 1_750_000_000 + 900 + 59))
            _ = try await Self.verifier(await ring.publishedKeySet(), clock).verify(oldToken.token)

            clock.set(Date(timeIntervalSince1970: 1_750_000_000 + 960))
            let keySet = await ring.publishedKeySet()
            let currentKid = try #require(await ring.currentKid)
            #expect(keySet.keys.compactMap(\.keyID) == [currentKid])
            await #expect(throws: AccessTokenError.unknownKeyID(oldKid)) {
                try await Self.verifier(keySet, clock).verify(oldToken.token)
            }
            // A reload (or a restarted ring) does not bring it back.
            try await ring.reload()
            #expect(await ring.publishedKeySet().keys.count == 1)
        }
    }

    @Test("a token with a tampered payload, header or signature fails verification")
    func tampering() async throws {
        try await TestBackend.sqlite.withStorage { makeStorage in
            let ring = SigningKeyRing(storage: try await makeStorage())
            try await ring.start()
            let issuer = AccessTokenIssuer(keyRing: ring, issuer: Self.issuer, audience: Self.audience)
            let token = try await issuer.issue(subject: "u1", role: .traveller, sessionId: "s1").token
            let verifier = AccessTokenVerifier(
                keys: StaticKeySource(keySet: await ring.publishedKeySet()), issuer: Self.issuer, audience: Self.audience)
            _ = try await verifier.verify(token)

            var segments = token.split(separator: ".").map(String.init)
            var payload = try Self.json(segment: 1, of: token)
            payload["role"] = "admin"
            let forged = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
            segments[1] = Base64URL.encode(forged)
            await #expect(throws: AccessTokenError.invalidSignatureOrClaims) {
                try await verifier.verify(segments.joined(separator: "."))
            }

            var signature = token.split(separator: ".").map(String.init)
            signature[2] = String(signature[2].reversed())
            await #expect(throws: AccessTokenError.invalidSignatureOrClaims) {
                try await verifier.verify(signature.joined(separator: "."))
            }

            // A token signed by an unrelated key with the same kid fails too.
            let stranger = SigningKeyRing(storage: InMemorySigningKeyStorage())
            try await stranger.start()
            let strangerToken = try await AccessTokenIssuer(keyRing: stranger, issuer: Self.issuer, audience: Self.audience)
                .issue(subject: "u1", role: .admin, sessionId: "s1").token
            let kid = try #require(await ring.currentKid)
            let strangerKey = try await stranger.signingKey().key
            var strangerSegments = strangerToken.split(separator: ".").map(String.init)
            var header = try Self.json(segment: 0, of: strangerToken)
            header["kid"] = kid
            strangerSegments[0] = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
            let input = strangerSegments[0] + "." + strangerSegments[1]
            let resigned = try strangerKey.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
            await #expect(throws: AccessTokenError.invalidSignatureOrClaims) {
                try await verifier.verify(input + "." + Base64URL.encode(resigned.rawRepresentation))
            }
        }
    }

    @Test("two rings starting at once on an empty storage converge on one signing key", arguments: TestBackend.enabled)
    func concurrentStart(backend: TestBackend) async throws {
        try await backend.withStorage { makeStorage in
            let first = SigningKeyRing(storage: try await makeStorage())
            let second = SigningKeyRing(storage: try await makeStorage())
            async let a: Void = first.start()
            async let b: Void = second.start()
            _ = try await (a, b)
            let stored = try await makeStorage().loadAll()
            #expect(stored.filter { $0.retiredAt == nil }.count == 1)
            try await first.reload()
            try await second.reload()
            let kid = try #require(await first.currentKid)
            #expect(await second.currentKid == kid)
            #expect(stored.first { $0.retiredAt == nil }?.kid == kid)
        }
    }

    @Test("a ring picks up another instance's rotation by itself once reloadInterval has passed")
    func backgroundReload() async throws {
        let storage = InMemorySigningKeyStorage()
        let ring = SigningKeyRing(storage: storage, reloadInterval: .milliseconds(50))
        try await ring.start()
        let other = SigningKeyRing(storage: storage)
        try await other.start()
        let rotated = try await other.rotate()
        var signing = try await ring.signingKey().kid
        try await eventually {
            signing = try await ring.signingKey().kid
            return signing == rotated
        }
        #expect(signing == rotated)
        #expect(await ring.publishedKeySet().keys.count == 2)
    }

    @Test("an unreadable current key stops the ring loudly; an unreadable retired key is only left out")
    func unreadableKeys() async throws {
        let good = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        let now = Date()
        let broken = InMemorySigningKeyStorage()
        try await broken.insert(StoredSigningKey(kid: "old", privateKeyPEM: good, createdAt: now - 60, retiredAt: now - 30))
        try await broken.insert(StoredSigningKey(kid: "current", privateKeyPEM: "not a key", createdAt: now - 30))
        await #expect(throws: SigningKeyRingError.unreadableKey(kid: "current")) { try await SigningKeyRing(storage: broken).start() }

        let tolerable = InMemorySigningKeyStorage()
        try await tolerable.insert(StoredSigningKey(kid: "old", privateKeyPEM: "not a key", createdAt: now - 60, retiredAt: now - 30))
        try await tolerable.insert(StoredSigningKey(kid: "current", privateKeyPEM: good, createdAt: now - 30))
        let ring = SigningKeyRing(storage: tolerable)
        try await ring.start()
        #expect(try await ring.signingKey().kid == "current")
        #expect(await ring.publishedKeySet().keys.compactMap(\.keyID) == ["current"])
    }

    @Test("a ring that has not started cannot sign")
    func notStarted() async throws {
        let ring = SigningKeyRing(storage: InMemorySigningKeyStorage())
        await #expect(throws: SigningKeyRingError.noActiveKey) { try await ring.signingKey() }
        #expect(await ring.publishedKeySet().keys.isEmpty)
        let issuer = AccessTokenIssuer(keyRing: ring, issuer: Self.issuer, audience: Self.audience)
        await #expect(throws: SigningKeyRingError.noActiveKey) {
            try await issuer.issue(subject: "u", role: .traveller, sessionId: "s")
        }
    }

    @Test("four hundred tokens issued concurrently all succeed (the rate is printed)")
    func issuingSpeed() async throws {
        let ring = SigningKeyRing(storage: InMemorySigningKeyStorage())
        try await ring.start()
        let issuer = AccessTokenIssuer(keyRing: ring, issuer: Self.issuer, audience: Self.audience)
        let count = 400
        let elapsed = try await ContinuousClock().measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask { _ = try await issuer.issue(subject: "u\(index)", role: .traveller, sessionId: "s") }
                }
                try await group.waitForAll()
            }
        }
        let perSecond = Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        // No rate threshold: speed is measured by `waypoint-bench auth`; a timed assertion failed when the whole suite
        // shared the machine's two cores (28/s in one CI run).
        print("issued \(count) access tokens in \(elapsed) (\(Int(perSecond))/s)")
    }

    // MARK: - Helpers

    private static func verifier(_ keySet: JSONWebKeySet, _ clock: TestClock) -> AccessTokenVerifier {
        AccessTokenVerifier(keys: StaticKeySource(keySet: keySet), issuer: issuer, audience: audience, now: clock.read)
    }

    private static func json(segment: Int, of token: String) throws -> [String: Any] {
        var text = String(token.split(separator: ".")[segment])
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let data = try #require(Data(base64Encoded: text))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

/// Where the signing-key tests keep keys: SQLite always, PostgreSQL when the test script provides a server.
extension TestBackend {
    /// Runs `body` with a factory of storages over one fresh database (each call is a new storage instance, as after
    /// a restart), and removes the database afterwards.
    func withStorage(_ body: @Sendable (@Sendable () async throws -> any SigningKeyStorage) async throws -> Void) async throws {
        let token = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-keys-\(token)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let database = try SQLiteServiceDatabase(path: directory.appendingPathComponent("auth.sqlite").path)
            try await body { try await database.migrate(AuthMigrations.all); return SQLiteSigningKeyStorage(database: database) }
        case .postgres:
            let url = try Self.postgresURL
            let schema = "t_keys_\(token)"
            let database = try PostgresServiceDatabase(url: url, schema: schema, maximumConnections: 4)
            try await database.withRunning {
                do {
                    try await body { try await database.migrate(AuthMigrations.all); return PostgresSigningKeyStorage(database: database) }
                } catch {
                    _ = try? await database.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE"))
                    throw error
                }
                try await database.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE"))
            }
        }
    }
}

/// Keys in memory, for tests that do not exercise a database.
private final class InMemorySigningKeyStorage: SigningKeyStorage {
    private let keys = Mutex<[StoredSigningKey]>([])

    func loadAll() async throws -> [StoredSigningKey] { keys.withLock { $0 } }

    func insert(_ key: StoredSigningKey) async throws {
        keys.withLock { $0.append(key) }
    }

    func markRetired(kid: String, at: Date) async throws {
        keys.withLock { keys in
            for index in keys.indices where keys[index].kid == kid && keys[index].retiredAt == nil {
                keys[index].retiredAt = at
            }
        }
    }
}

/// A settable clock for key retirement and token expiry.
private final class TestClock: Sendable {
    private let now: Mutex<Date>

    init(_ start: Date) { now = Mutex(start) }

    var read: @Sendable () -> Date { { self.now.withLock { $0 } } }

    func advance(by seconds: TimeInterval) { now.withLock { $0 += seconds } }

    func set(_ date: Date) { now.withLock { $0 = date } }
}
