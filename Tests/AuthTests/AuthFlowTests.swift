import Auth
import AuthInfrastructure
import Foundation
import JWTKit
import ServiceKit
import ServiceTesting
import Testing

@Suite("auth: registration, login, tokens and sessions")
struct AuthFlowTests {
    @Test("registration applies every rule as its own field error in one 422", arguments: [TestBackend.sqlite])
    func registrationRules(backend: TestBackend) async throws {
        let harness = AuthHarness(backend: backend)
        defer { harness.remove() }
        try await harness.run { _, client in
            let bad = try await client.post("/v1/auth/register",
                                             #"{"username":"ab!","email":"not-an-email","password":"short","role":"admin","licenceNumber":"X1"}"#)
            #expect(bad.status == 422)
            #expect(bad.headers[.contentType] == "application/problem+json")
            #expect(bad.fieldErrors.isSuperset(of: [
                "username:invalid-characters", "email:invalid-email", "password:too-short", "password:missing-uppercase",
                "password:missing-digit", "role:not-allowed", "licenceNumber:not-allowed",
            ]))
            let same = try await client.register("walker7", "walker7@example.com", password: "walker7@example.com")
            #expect(same.fieldErrors.contains("password:equals-email"))
            let sameName = try await client.register("Walker7x", "w7@example.com", password: "WALKER7X")
            #expect(sameName.fieldErrors == ["password:equals-username"])
            let tooLong = try await client.register("a123456789012345678901", "x@example.com")
            #expect(tooLong.fieldErrors.contains("username:too-long"))

            let created = try await client.register("Walker7", "Walker7@Example.com", role: "guide")
            #expect(created.status == 201)
            #expect(created["email"] == "walker7@example.com")
            #expect(created["role"] == "guide")
            #expect(created.headers[.location] == "/v1/users/\(created["id"] ?? "")")
            // Unique case-insensitively, each its own field error.
            let duplicate = try await client.register("WALKER7", "WALKER7@example.COM")
            #expect(duplicate.status == 422)
            #expect(duplicate.fieldErrors == ["username:already-taken", "email:already-taken"])
        }
    }

    @Test("concurrent registrations of one email (in any case) or one username: exactly one wins", arguments: TestBackend.enabled)
    func concurrentRegistrations(backend: TestBackend) async throws {
        let harness = AuthHarness(backend: backend)
        defer { harness.remove() }
        // The twelve registrations really race: each goes over its own connection (`.live`'s one connection would serve
        // them one after another). They are sent by a client of their own rather than `.ahc`'s, whose fixed 15 s
        // deadline (and `.live`'s 20 s read timeout) a fully loaded parallel test run outlived while the server's
        // tasks waited for a thread — the test is about who wins, not about latency.
        try await harness.run { server, client in
            let port = try #require(client.port)
            let statuses = try await AuthClient.race(port: port, (0..<6).map { index in
                ("racer\(index)", index.isMultiple(of: 2) ? "race@example.com" : "RACE@example.com")
            } + (0..<6).map { index in
                (index.isMultiple(of: 2) ? "samename" : "SameName", "same\(index)@example.com")
            })
            #expect(statuses.filter { $0 == 201 }.count == 2)
            #expect(statuses.filter { $0 == 422 }.count == 10)
            #expect(server.directory.allUsers().count == 2)
        }
    }

    @Test("login issues an RS256 access token with every claim and a kid, verifiable against the published JWKS",
          arguments: TestBackend.enabled)
    func loginTokens(backend: TestBackend) async throws {
        let harness = AuthHarness(backend: backend)
        defer { harness.remove() }
        try await harness.run { server, client in
            let registered = try await client.register("tokens1", "tokens1@example.com", role: "guide")
            let login = try await client.login("TOKENS1@example.com")
            #expect(login.status == 200)
            let access = try #require(login["accessToken"])
            #expect(login.json["expiresIn"] as? Int == 900)
            let refresh = try #require(login["refreshToken"])
            #expect(Base64URLBytes.count(refresh) == 48, "session id + 256 random bits")

            let jwks = try await client.send(.get, "/.well-known/jwks.json")
            #expect(jwks.status == 200)
            let keySet = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(jwks.text.utf8))
            let verifier = AccessTokenVerifier(keys: StaticKeySource(keySet: keySet), issuer: "waypoint-auth", audience: "waypoint")
            let identity = try await verifier.verify(access)
            #expect(identity.subject == registered["id"])
            #expect(identity.role == .guide)
            #expect(identity.sessionId == login["sessionId"])

            let parts = access.split(separator: ".")
            let header = try #require(Base64URLBytes.json(String(parts[0])))
            let claims = try #require(Base64URLBytes.json(String(parts[1])))
            #expect(header["alg"] as? String == "RS256")
            #expect(header["kid"] as? String == keySet.keys.first?.keyID)
            for claim in ["sub", "role", "sid", "iss", "aud", "iat", "exp", "jti"] { #expect(claims[claim] != nil, "claim \(claim)") }
            let iat = try #require(claims["iat"] as? Double), exp = try #require(claims["exp"] as? Double)
            #expect(exp - iat == 900)
            #expect(server.directory.user(email: "tokens1@example.com")?.passwordHash?.hasPrefix("$2b$10$") == true)
        }
    }

    @Test("refresh rotates the token every time; a reused refresh token revokes the whole session", arguments: TestBackend.enabled)
    func refreshRotationAndReuse(backend: TestBackend) async throws {
        let harness = AuthHarness(backend: backend)
        defer { harness.remove() }
        try await harness.run { _, client in
            _ = try await client.register("rotate1", "rotate1@example.com")
            let login = try await client.login("rotate1@example.com", device: "phone")
            let first = try #require(login["refreshToken"])
            let second = try await client.refresh(first, device: "phone")
            #expect(second.status == 200)
            let secondToken = try #require(second["refreshToken"])
            #expect(secondToken != first)
            #expect(second["sessionId"] == login["sessionId"])
            // Bound to the device.
            #expect(try await client.refresh(secondToken, device: "laptop").status == 401)
            #expect(try await client.post("/v1/auth/refresh", #"{"refreshToken":"\#(secondToken)"}"#).status == 422, "the device is required")
            let third = try await client.refresh(secondToken, device: "phone")
            #expect(third.status == 200)
            // The first token again: reuse → the session is revoked, so even the newest token stops working.
            let reuse = try await client.refresh(first)
            #expect(reuse.status == 401)
            #expect(reuse["code"] == "refresh-token-reused")
            #expect(try await client.refresh(try #require(third["refreshToken"])).status == 401)
            #expect(try await client.send(.get, "/v1/users/me", token: third["accessToken"]).status == 401)
            #expect(try await client.refresh("not-a-token").status == 401)
        }
    }

    @Test("logout revokes the session; sessions are listed and one can be revoked, only by its owner")
    func logoutAndSessions() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { _, client in
            _ = try await client.register("sessions1", "sessions1@example.com")
            _ = try await client.register("other1", "other1@example.com")
            let a = try await client.login("sessions1@example.com", device: "phone")
            let b = try await client.login("sessions1@example.com", device: "laptop")
            let other = try await client.login("other1@example.com")
            let list = try await client.send(.get, "/v1/auth/sessions", token: a["accessToken"])
            #expect(list.status == 200)
            let sessions = try #require(list.json["sessions"] as? [[String: Any]])
            #expect(sessions.count == 2)
            #expect(Set(sessions.compactMap { $0["deviceId"] as? String }) == ["phone", "laptop"])
            #expect(sessions.filter { $0["current"] as? Bool == true }.count == 1)
            // Someone else's session: 404, and it stays alive.
            let bSession = try #require(b["sessionId"])
            #expect(try await client.send(.delete, "/v1/auth/sessions/\(bSession)", token: other["accessToken"]).status == 404)
            #expect(try await client.send(.delete, "/v1/auth/sessions/\(bSession)", token: a["accessToken"]).status == 204)
            #expect(try await client.refresh(try #require(b["refreshToken"])).status == 401)
            #expect(try await client.send(.post, "/v1/auth/logout", token: a["accessToken"]).status == 204)
            #expect(try await client.refresh(try #require(a["refreshToken"])).status == 401)
            #expect(try await client.send(.get, "/v1/auth/sessions", token: a["accessToken"]).status == 401)
            #expect(try await client.send(.post, "/v1/auth/logout").status == 401)
        }
    }

    @Test("a sixth login revokes the oldest of five live sessions")
    func sessionCap() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { server, client in
            _ = try await client.register("capped1", "capped1@example.com")
            var logins: [AuthClient.Reply] = []
            for index in 0..<6 {
                logins.append(try await client.login("capped1@example.com", device: "device-\(index)"))
                harness.clock.advance(seconds: 1)
            }
            #expect(try await client.refresh(try #require(logins[0]["refreshToken"])).status == 401)
            let user = try #require(server.directory.user(email: "capped1@example.com"))
            let live = server.directory.sessions(of: user.id).filter { $0.isLive(at: harness.clock.now()) }
            #expect(live.count == 5)
            let oldestID = try #require(logins[0]["sessionId"].flatMap(UUID.init(uuidString:)))
            let oldest = try #require(server.directory.session(oldestID))
            #expect(oldest.revocation == .sessionLimit)
            #expect(try await client.refresh(try #require(logins[1]["refreshToken"])).status == 200)
        }
    }

    @Test("unknown email and wrong password give the same status and body, after the same bcrypt work")
    func noEnumeration() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { server, client in
            _ = try await client.register("known1", "known1@example.com")
            func problem(_ reply: AuthClient.Reply) -> [String: String] {
                var json = reply.json.compactMapValues { $0 as? String }
                json["requestId"] = nil
                return json
            }
            // Equal work, counted rather than timed (shared machines make timings noisy): one bcrypt at the
            // configured cost either way. The benchmark reports the latencies.
            let before = server.hasher.computations
            let unknown = try await client.login("nobody@example.com", password: "Wrong12345")
            let afterUnknown = server.hasher.computations
            let wrong = try await client.login("known1@example.com", password: "Wrong12345")
            let afterWrong = server.hasher.computations
            #expect(afterUnknown - before == 1)
            #expect(afterWrong - afterUnknown == 1)
            #expect(unknown.status == 401 && wrong.status == 401)
            #expect(problem(unknown) == problem(wrong))
            #expect(unknown.headers[.retryAfter] == nil && wrong.headers[.retryAfter] == nil)
        }
    }

    @Test("ten failed logins in a row lock the account for 15 minutes; a success resets the count")
    func lockout() async throws {
        let harness = AuthHarness()
        defer { harness.remove() }
        try await harness.run { _, client in
            _ = try await client.register("locked1", "locked1@example.com")
            for _ in 0..<9 { #expect(try await client.login("locked1@example.com", password: "Wrong12345").status == 401) }
            #expect(try await client.login("locked1@example.com").status == 200, "nine failures do not lock; success resets")
            for _ in 0..<10 { #expect(try await client.login("locked1@example.com", password: "Wrong12345").status == 401) }
            let locked = try await client.login("locked1@example.com")
            #expect(locked.status == 429)
            #expect(locked["code"] == "account-locked")
            #expect(locked.headers[.retryAfter] != nil)
            harness.clock.advance(seconds: 14 * 60)
            #expect(try await client.login("locked1@example.com").status == 429)
            harness.clock.advance(seconds: 61)
            #expect(try await client.login("locked1@example.com").status == 200)
        }
    }

    @Test("state survives a restart: accounts, sessions and keys come back from the log and the store", arguments: TestBackend.enabled)
    func restart(backend: TestBackend) async throws {
        let harness = AuthHarness(backend: backend)
        defer { harness.remove() }
        let (refresh, kid) = try await harness.run { server, client in
            _ = try await client.register("durable1", "durable1@example.com", role: "guide")
            let login = try await client.login("durable1@example.com")
            return (try #require(login["refreshToken"]), await server.keyRing.currentKid)
        }
        try await harness.run { server, client in
            #expect(await server.keyRing.currentKid == kid)
            let refreshed = try await client.refresh(refresh)
            #expect(refreshed.status == 200)
            #expect(try await client.login("durable1@example.com").status == 200)
            let me = try await client.send(.get, "/v1/users/me", token: refreshed["accessToken"])
            #expect(me["username"] == "durable1")
            #expect(me["role"] == "guide")
        }
    }
}

/// Decoding of base64url token parts in tests.
enum Base64URLBytes {
    static func data(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    static func count(_ text: String) -> Int { data(text)?.count ?? 0 }

    static func json(_ text: String) -> [String: Any]? {
        data(text).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }
}
