import Auth
import AuthInfrastructure
import Foundation
import ServiceTesting
import Testing

@Suite("auth: single sign-on with OpenID Connect ID tokens")
struct SSOTests {
    /// An ID token signed by `key`, issued at `now` — the harness clock's time in tests against auth, whose verifier
    /// reads that clock (a wall-clock `iat` drifted past the 60 s leeway when the unit stage ran slowly).
    static func idToken(_ key: TestSigningKey, issuedAt now: Date = Date(), issuer: String = "https://accounts.google.com", audience: String = "waypoint-web",
                        subject: String, email: String?, verified: Bool = true, name: String? = nil,
                        expiresIn: TimeInterval = 600) async throws -> String {
        return try await key.sign(payload: IDTokenClaims(
            iss: issuer, aud: [audience], sub: subject, iat: now, exp: now.addingTimeInterval(expiresIn), email: email,
            emailVerified: .bool(verified), name: name))
    }

    @Test("a Google ID token verified against the provider's JWKS creates the account, then logs into it; a verified email links an existing account")
    func googleSignIn() async throws {
        let providerKey = try TestSigningKey(kid: "google-test-1")
        let endpoint = JWKSEndpoint(keys: [providerKey])
        let harness = AuthHarness()
        defer { harness.remove() }
        try await LoopbackServer.run(router: endpoint.router()) { port in
            let jwks = "http://127.0.0.1:\(port)/.well-known/jwks.json"
            try await harness.run({ configuration in
                configuration.ssoProviders = [.google(clientIDs: ["waypoint-web"], jwksURL: jwks)]
                // The loopback key server can take seconds to answer under the shared unit stage (5 s gave a 401 once).
                configuration.ssoKeyFetchTimeout = .seconds(60)
            }) { server, client in
                func signIn(_ token: String, role: String? = nil) async throws -> AuthClient.Reply {
                    let roleField = role.map { #","role":"\#($0)""# } ?? ""
                    return try await client.post("/v1/auth/sso/google", #"{"idToken":"\#(token)","deviceId":"pixel"\#(roleField)}"#)
                }
                let token = try await Self.idToken(providerKey, issuedAt: harness.clock.now(), subject: "google-sub-1", email: "Hiker.One@Example.com", name: "Hiker One")
                let first = try await signIn(token, role: "guide")
                #expect(first.status == 201)
                #expect(first.json["created"] as? Bool == true)
                let user = try #require(first.json["user"] as? [String: Any])
                #expect(user["role"] as? String == "guide")
                #expect(user["username"] as? String == "HikerOne")
                let again = try await signIn(try await Self.idToken(providerKey, issuedAt: harness.clock.now(), subject: "google-sub-1", email: "other@example.com"))
                #expect(again.status == 200)
                #expect((again.json["user"] as? [String: Any])?["id"] as? String == user["id"] as? String)
                #expect(try await client.refresh(try #require(again["refreshToken"]), device: "pixel").status == 200)
                // No password: password login is impossible for this account.
                #expect(try await client.login("hiker.one@example.com").status == 401)

                // An existing password account with the same verified email gets linked, not duplicated.
                let existing = try await client.register("walker9", "walker9@example.com")
                let linked = try await signIn(try await Self.idToken(providerKey, issuedAt: harness.clock.now(), subject: "google-sub-9", email: "walker9@example.com"))
                #expect(linked.status == 200)
                #expect((linked.json["user"] as? [String: Any])?["id"] as? String == existing["id"])
                let unverified = try await signIn(try await Self.idToken(providerKey, issuedAt: harness.clock.now(), subject: "google-sub-10", email: "new10@example.com", verified: false))
                #expect(unverified.status == 422)
                #expect(server.directory.user(email: "new10@example.com") == nil)
            }
        }
    }

    @Test("the key-fetch timeout is 5 s unless WAYPOINT_AUTH_SSO_KEY_FETCH_TIMEOUT_SECONDS says otherwise (at least 0.1 s)")
    func keyFetchTimeoutSetting() throws {
        let directory = TemporaryDirectory("waypoint-auth-config")
        defer { directory.remove() }
        let base = ["WAYPOINT_DATA_DIR": directory.url.path]
        #expect(try AuthConfiguration.fromEnvironment(base).ssoKeyFetchTimeout == .seconds(5))
        let configured = base.merging(["WAYPOINT_AUTH_SSO_KEY_FETCH_TIMEOUT_SECONDS": "12.5"]) { $1 }
        #expect(try AuthConfiguration.fromEnvironment(configured).ssoKeyFetchTimeout == .milliseconds(12_500))
        for bad in ["0", "-1", "soon"] {
            #expect(throws: (any Error).self) {
                try AuthConfiguration.fromEnvironment(base.merging(["WAYPOINT_AUTH_SSO_KEY_FETCH_TIMEOUT_SECONDS": bad]) { $1 })
            }
        }
    }

    @Test("ID tokens with a wrong audience, issuer, key or expiry, and unconfigured providers, are refused")
    func refusals() async throws {
        let providerKey = try TestSigningKey(kid: "google-test-2")
        let stranger = try TestSigningKey(kid: "google-test-2")
        let endpoint = JWKSEndpoint(keys: [providerKey])
        let harness = AuthHarness()
        defer { harness.remove() }
        try await LoopbackServer.run(router: endpoint.router()) { port in
            let jwks = "http://127.0.0.1:\(port)/.well-known/jwks.json"
            try await harness.run({ configuration in
                configuration.ssoProviders = [.google(clientIDs: ["waypoint-web"], jwksURL: jwks)]
                // The loopback key server can take seconds to answer under the shared unit stage (5 s gave a 401 once).
                configuration.ssoKeyFetchTimeout = .seconds(60)
            }) { (_: AuthServer, client: AuthClient) async throws in
                func status(_ token: String, provider: String = "google") async throws -> Int {
                    try await client.post("/v1/auth/sso/\(provider)", #"{"idToken":"\#(token)","deviceId":"pixel"}"#).status
                }
                #expect(try await status(try await Self.idToken(providerKey, issuedAt: harness.clock.now(), audience: "someone-else", subject: "s", email: "a@example.com")) == 401)
                #expect(try await status(try await Self.idToken(providerKey, issuedAt: harness.clock.now(), issuer: "https://evil.example", subject: "s", email: "a@example.com")) == 401)
                #expect(try await status(try await Self.idToken(stranger, issuedAt: harness.clock.now(), subject: "s", email: "a@example.com")) == 401)
                #expect(try await status(try await Self.idToken(providerKey, issuedAt: harness.clock.now(), subject: "s", email: "a@example.com", expiresIn: -600)) == 401)
                #expect(try await status("not.a.token") == 401)
                #expect(try await status(try await Self.idToken(providerKey, issuedAt: harness.clock.now(), subject: "s", email: "a@example.com"), provider: "apple") == 404)
            }
        }
    }
}
