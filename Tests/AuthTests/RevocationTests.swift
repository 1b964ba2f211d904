import Auth
import Contracts
import Foundation
import Kafka
import Logging
import Messaging
import ServiceKit
import ServiceTesting
import Synchronization
import Testing

/// Issue 16, point 9: a session's end reaches every service through `waypoint.auth` (`SessionRevoked`), and their
/// verifiers refuse its access tokens.
@Suite("auth: a revoked session is refused by every service")
struct RevocationTests {
    static let quiet: Logger = {
        var logger = Logger(label: "test.revocations")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs a service (`run`) while `body` runs.
    static func whileRunning<T: Sendable>(_ run: @escaping @Sendable () async throws -> Void,
                                          _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await run()
                return nil
            }
            group.addTask { try await body() }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw TestSetupError("the service stopped before the test ended")
        }
    }

    struct Sessions: Sendable {
        var loggedOut: (token: String, session: String)
        var reused: (token: String, session: String)
        var passwordChanged: (token: String, session: String)
        var live: (token: String, session: String)
    }

    /// Four sessions of one user; ends three of them (logout, refresh-token reuse, password change from the fourth).
    static func endSessions(_ client: AuthClient) async throws -> Sessions {
        #expect(try await client.register("revoked1", "revoked1@example.com").status == 201)
        func login(_ device: String) async throws -> (token: String, session: String, refresh: String) {
            let reply = try await client.login("revoked1@example.com", device: device)
            return (try #require(reply["accessToken"]), try #require(reply["sessionId"]), try #require(reply["refreshToken"]))
        }
        let a = try await login("a"), b = try await login("b"), c = try await login("c"), d = try await login("d")
        #expect(try await client.send(.post, "/v1/auth/logout", token: a.token).status == 204)
        #expect(try await client.refresh(b.refresh, device: "b").status == 200)
        #expect(try await client.refresh(b.refresh, device: "b")["code"] == "refresh-token-reused")
        #expect(try await client.post("/v1/auth/password", #"{"currentPassword":"Secret123x","newPassword":"Changed123x"}"#, token: d.token).status == 204)
        return Sessions(loggedOut: (a.token, a.session), reused: (b.token, b.session), passwordChanged: (c.token, c.session),
                        live: (d.token, d.session))
    }

    @Test("another service learns logout, refresh-token reuse and a password change from waypoint.auth, refuses those tokens (401 in its app), and still does after a restart with auth unreachable",
          arguments: TestBackend.enabled)
    func consumingServiceRefuses(backend: TestBackend) async throws {
        let harness = AuthHarness(backend: backend)
        let consumerDirectory = TemporaryDirectory("waypoint-revocations")
        defer {
            harness.remove()
            consumerDirectory.remove()
        }
        let settings = try backend.runtime("revocation-test", in: consumerDirectory)
        let (sessions, keys) = try await harness.run { server, client in
            let authURL = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
            let keys = StaticKeySource(keySet: await server.keyRing.publishedKeySet())
            let sessions = try await ServiceStorage.withOpen(settings, logger: Self.quiet) { storage in
                let feed = try await storage.revokedSessions(producerURL: authURL, internalToken: AuthHarness.internalToken,
                                                             options: ConsumerOptions(pollTimeout: .milliseconds(250)), logger: Self.quiet)
                return try await Self.whileRunning({ try await feed.consumer.run() }) {
                    let sessions = try await Self.endSessions(client)
                    let ended = [sessions.loggedOut.session, sessions.reused.session, sessions.passwordChanged.session]
                    #expect(try await eventually(timeout: .seconds(60)) { ended.allSatisfy { feed.registry.isRevoked(sessionId: $0) } })
                    #expect(!feed.registry.isRevoked(sessionId: sessions.live.session))
                    let verifier = AccessTokenVerifier(keys: keys, issuer: TokenForge.issuer, audience: TokenForge.audience,
                                                       revokedSessions: feed.registry)
                    for token in [sessions.loggedOut.token, sessions.reused.token, sessions.passwordChanged.token] {
                        await #expect(throws: AccessTokenError.sessionRevoked) { try await verifier.verify(token) }
                    }
                    #expect(try await verifier.verify(sessions.live.token).sessionId == sessions.live.session)
                    return sessions
                }
            }
            return (sessions, keys)
        }
        // auth is gone; the consuming service restarts on its storage and still refuses (before its consumer runs at all).
        try await ServiceStorage.withOpen(settings, logger: Self.quiet) { storage in
            let feed = try await storage.revokedSessions(producerURL: URL(string: "http://127.0.0.1:9")!, internalToken: AuthHarness.internalToken,
                                                         logger: Self.quiet)
            #expect(feed.registry.isRevoked(sessionId: sessions.loggedOut.session))
            #expect(feed.registry.isRevoked(sessionId: sessions.reused.session))
            #expect(feed.registry.isRevoked(sessionId: sessions.passwordChanged.session))
            #expect(!feed.registry.isRevoked(sessionId: sessions.live.session))
            let app = try ServiceApplication(
                configuration: ServiceConfiguration(serviceName: "revocation-test", port: 0, logLevel: .critical),
                metrics: ServiceMetrics(), keySource: keys, revokedSessions: feed.registry, logger: Self.quiet
            ) { routes in
                routes.authenticated("/v1/whoami").get { _, context in try context.requireIdentity().sessionId }
            }
            try await app.test(.router) { client in
                let refused = try await client.execute(uri: "/v1/whoami", method: .get,
                                                       headers: [.authorization: "Bearer \(sessions.loggedOut.token)"])
                #expect(refused.status == .unauthorized)
                #expect(refused.headers[.contentType] == "application/problem+json")
                #expect(String(buffer: refused.body).contains(#""code":"invalid-token""#))
                let accepted = try await client.execute(uri: "/v1/whoami", method: .get, headers: [.authorization: "Bearer \(sessions.live.token)"])
                #expect(accepted.status == .ok)
            }
        }
    }

    @Test("on Kafka too: auth's relay publishes SessionRevoked to waypoint.auth, and a consuming service and the gateway's follower refuse those sessions")
    func overKafka() async throws {
        let cluster = try KafkaMockCluster()
        let harness = AuthHarness()
        let consumerDirectory = TemporaryDirectory("waypoint-revocations")
        defer {
            cluster.shutdown()
            harness.remove()
            consumerDirectory.remove()
        }
        let brokers = cluster.bootstrapServers
        let settings = try TestBackend.sqlite.runtime("revocation-test", in: consumerDirectory, kafkaBrokers: brokers,
                                                      kafkaProperties: KafkaMockCluster.clientProperties)
        try await harness.run({
            $0.runtime.kafkaBrokers = brokers
            $0.runtime.kafkaProperties = KafkaMockCluster.clientProperties
        }) { _, client in
            let sessions = try await Self.endSessions(client)
            let ended = [sessions.loggedOut.session, sessions.reused.session, sessions.passwordChanged.session]
            try await ServiceStorage.withOpen(settings, logger: Self.quiet) { storage in
                let feed = try await storage.revokedSessions(producerURL: nil, internalToken: nil,
                                                             options: ConsumerOptions(pollTimeout: .milliseconds(250)), logger: Self.quiet)
                try await Self.whileRunning({ try await feed.consumer.run() }) { () async throws -> Void in
                    let arrived = try await eventually(timeout: .seconds(60)) { ended.allSatisfy { feed.registry.isRevoked(sessionId: $0) } }
                    #expect(arrived)
                    #expect(!feed.registry.isRevoked(sessionId: sessions.live.session))
                }
            }
            let follower = RevokedSessionsFollower(
                transport: .kafka(brokers: brokers, properties: KafkaMockCluster.clientProperties, clientID: "gateway-test"),
                pollTimeout: .milliseconds(250), logger: Self.quiet)
            try await Self.whileRunning({ try await follower.run() }) { () async throws -> Void in
                let arrived = try await eventually(timeout: .seconds(60)) { ended.allSatisfy { follower.registry.isRevoked(sessionId: $0) } }
                #expect(arrived)
                #expect(!follower.registry.isRevoked(sessionId: sessions.live.session))
            }
        }
    }

    @Test("the gateway's follower (no store) reads waypoint.auth from the beginning at every start and refuses the same sessions")
    func statelessFollowerReplays() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { _, client in
            let authURL = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
            let sessions = try await Self.endSessions(client)
            // A "restart": each follower starts empty, after the revocations happened.
            for _ in 0..<2 {
                let follower = RevokedSessionsFollower(transport: .embedded(authURL: authURL, internalToken: AuthHarness.internalToken),
                                                       pollTimeout: .milliseconds(250), logger: Self.quiet)
                try await Self.whileRunning({ try await follower.run() }) { () async throws -> Void in
                    let caughtUp = try await eventually(timeout: .seconds(60)) { follower.isCaughtUp }
                    #expect(caughtUp)
                    #expect(follower.registry.isRevoked(sessionId: sessions.loggedOut.session))
                    #expect(follower.registry.isRevoked(sessionId: sessions.reused.session))
                    #expect(follower.registry.isRevoked(sessionId: sessions.passwordChanged.session))
                    #expect(!follower.registry.isRevoked(sessionId: sessions.live.session))
                }
            }
            // auth itself refuses them from its own session store.
            #expect(try await client.send(.get, "/v1/users/me", token: sessions.loggedOut.token).status == 401)
            #expect(try await client.send(.get, "/v1/users/me", token: sessions.live.token).status == 200)
        }
    }

    @Test("a revocation is remembered until every token of its session has expired (15 min + leeway), then dropped")
    func retention() async throws {
        final class Clock: Sendable {
            let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        }
        let clock = Clock()
        let registry = RevokedSessions(now: { clock.now.withLock { $0 } })
        let revokedAt = clock.now.withLock { $0 }
        #expect(registry.revoke(sessionId: "6F1C2F8E-0000-4000-8000-000000000001", revokedAt: revokedAt) != nil)
        #expect(registry.isRevoked(sessionId: "6f1c2f8e-0000-4000-8000-000000000001"), "case-insensitive")
        // A token issued just before the revocation lives 15 minutes and is accepted 60 s past `exp`.
        clock.now.withLock { $0 = revokedAt.addingTimeInterval(15 * 60 + 60) }
        #expect(registry.isRevoked(sessionId: "6f1c2f8e-0000-4000-8000-000000000001"))
        clock.now.withLock { $0 = revokedAt.addingTimeInterval(Double(RevokedSessions.retention.components.seconds) + 1) }
        #expect(!registry.isRevoked(sessionId: "6f1c2f8e-0000-4000-8000-000000000001"))
        // A revocation older than that is not even kept (a consumer replaying old history).
        #expect(registry.revoke(sessionId: "6f1c2f8e-0000-4000-8000-000000000002", revokedAt: revokedAt) == nil)
        #expect(registry.revoke(sessionId: "6f1c2f8e-0000-4000-8000-000000000003", revokedAt: clock.now.withLock { $0 }) != nil)
        #expect(registry.count == 1, "expired entries are pruned as new ones arrive")
    }
}
