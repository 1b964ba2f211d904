import Auth
import AuthInfrastructure
import Contracts
import EventSourcing
import Foundation
import ServiceKit
import ServiceTesting
import Testing

@Suite("auth: bad tokens, bad input, what leaves the service, rebuild")
struct AttackTests {
    enum Forgery: String, CaseIterable, Sendable {
        case algNone, hs256WithPublicKey, expired, notYetValid, wrongAudience, wrongIssuer, unknownKid, tamperedPayload
    }

    @Test("forged or stale access tokens are refused with 401 before any handler runs", arguments: Forgery.allCases)
    func forgedTokens(forgery: Forgery) async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { server, client in
            let registered = try await client.register("victim1", "victim1@example.com")
            let login = try await client.login("victim1@example.com")
            let subject = try #require(registered["id"]), session = try #require(login["sessionId"])
            let (kid, ringKey) = try await server.keyRing.signingKey()
            let key = try TestSigningKey(kid: kid, backing: ringKey)
            let now = Date()
            func claims(issuedAt: Date = now, notBefore: Date? = nil, expiresAt: Date = now.addingTimeInterval(900),
                        issuer: String = TokenForge.issuer, audience: String = TokenForge.audience, role: Role = .traveller)
                -> AccessTokenClaims {
                TokenForge.claims(subject: subject, sessionId: session, role: role, issuer: issuer, audience: audience,
                                  issuedAt: issuedAt, notBefore: notBefore, expiresAt: expiresAt)
            }
            // The same claims signed properly pass: the refusals below are about the forgery alone.
            #expect(try await client.send(.get, "/v1/users/me", token: try await key.sign(claims())).status == 200)
            let token: String = switch forgery {
            case .algNone: try TokenForge.unsigned(kid: kid)
            case .hs256WithPublicKey: try await TokenForge.hmacWithPublicKey(key)
            case .expired: try await key.sign(claims(issuedAt: now.addingTimeInterval(-2_000), expiresAt: now.addingTimeInterval(-300)))
            case .notYetValid: try await key.sign(claims(notBefore: now.addingTimeInterval(600)))
            case .wrongAudience: try await key.sign(claims(audience: "someone-else"))
            case .wrongIssuer: try await key.sign(claims(issuer: "https://evil.example"))
            case .unknownKid: try await TestSigningKey.rotated.sign(claims())
            case .tamperedPayload: try TokenForge.tampered(try await key.sign(claims()), with: claims(role: .admin))
            }
            let reply = try await client.send(.get, "/v1/users/me", token: token)
            #expect(reply.status == 401)
            #expect(reply.headers[.contentType] == "application/problem+json")
            #expect(try await client.send(.put, "/v1/users/\(subject)/roles/moderator", token: token).status == 401)
        }
    }

    @Test("malformed JSON is a 400 problem, an oversized body a 413 problem, a wrong type or missing field a 422 naming it")
    func badInput() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { _, client in
            let malformed = try await client.post("/v1/auth/register", #"{"username": "x", "#)
            #expect(malformed.status == 400)
            #expect(malformed.headers[.contentType] == "application/problem+json")
            let huge = String(repeating: "a", count: 1_100_000)
            let oversized = try await client.post("/v1/auth/login", #"{"email":"\#(huge)","password":"x","deviceId":"d"}"#)
            #expect(oversized.status == 413)
            let wrongType = try await client.post("/v1/auth/login", #"{"email":42,"password":"x","deviceId":"d"}"#)
            #expect(wrongType.status == 422)
            #expect(wrongType.fieldErrors.contains { $0.hasPrefix("email:") })
            let missing = try await client.post("/v1/auth/login", #"{"email":"a@example.com"}"#)
            #expect(missing.status == 422)
            #expect(missing.fieldErrors.contains { $0.hasPrefix("password:") })
            #expect(try await client.send(.get, "/v1/users/not-a-uuid").status == 404)
            #expect(try await client.post("/v1/auth/sso/facebook", #"{"idToken":"x","deviceId":"d"}"#).status == 404)
        }
    }

    @Test("only the published language leaves: the feed serves Contracts events, never credentials or refresh-token hashes")
    func feedPublishesOnlyContracts() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { server, client in
            _ = try await client.register("feed1", "feed1@example.com")
            let login = try await client.login("feed1@example.com")
            _ = try await client.refresh(try #require(login["refreshToken"]))
            _ = try await client.login("feed1@example.com", password: "Wrong12345")
            #expect(try await client.send(.get, "/v1/internal/events?after=0&limit=1000").status == 401)
            let page = try await client.send(.get, "/v1/internal/events?after=0&limit=1000",
                                             token: AuthHarness.internalToken)
            #expect(page.status == 200)
            let events = try #require(page.json["events"] as? [[String: Any]])
            let types = Set(events.compactMap { $0["eventType"] as? String })
            #expect(types == ["UserRegistered", "SessionStarted"])
            let log = try await server.storage.store.readAll(after: 0, limit: 1_000)
            #expect(Set(log.map(\.eventType)).isSuperset(of: ["PasswordHashSet", "RefreshTokenIssued", "LoginFailed"]))
            #expect(!page.text.contains("$2b$"))
        }
    }

    @Test("a directory rebuilt from the log equals the live one after a varied workload", arguments: TestBackend.enabled)
    func rebuildEqualsLive(backend: TestBackend) async throws {
        let harness = AuthHarness(backend: backend)
        defer { harness.remove() }
        try await harness.run { server, client in
            _ = try await server.commands.createAdmin(username: "root1", email: "root1@example.com", password: "Admin123x")
            let admin = try await client.login("root1@example.com", password: "Admin123x")
            for index in 0..<4 {
                let user = try await client.register("rebuild\(index)", "rebuild\(index)@example.com", role: index.isMultiple(of: 2) ? "guide" : "traveller")
                let login = try await client.login("rebuild\(index)@example.com")
                _ = try await client.refresh(try #require(login["refreshToken"]))
                _ = try await client.send(.patch, "/v1/users/me", json: #"{"displayName":"Person \#(index)","language":"en"}"#,
                                          token: login["accessToken"])
                _ = try await client.login("rebuild\(index)@example.com", password: "Nope12345")
                if index == 1 { _ = try await client.send(.put, "/v1/users/\(try #require(user["id"]))/roles/moderator", token: admin["accessToken"]) }
                if index == 2 { _ = try await client.send(.put, "/v1/users/\(try #require(user["id"]))/suspension", token: admin["accessToken"]) }
                if index == 3 { _ = try await client.send(.delete, "/v1/users/me", token: login["accessToken"]) }
            }
            try await server.directory.sync()
            let rebuilt = AuthDirectory(store: server.storage.store, open: PersonalData(keys: server.storage.personalDataKeys).open)
            try await rebuilt.sync()
            #expect(rebuilt.position == server.directory.position)
            #expect(rebuilt.allUsers() == server.directory.allUsers())
            for user in server.directory.allUsers() {
                #expect(rebuilt.sessions(of: user.id) == server.directory.sessions(of: user.id))
            }
        }
    }
}
