import Foundation
import Gateway
import Hummingbird
import ServiceKit
import ServiceTesting
import Testing

@Suite("Edge auth: tokens checked against auth's JWKS before any service sees them")
struct EdgeAuthTests {
    static let brokenTokens: [(String, @Sendable () async throws -> String)] = [
        ("expired", { try await TestSigningKey.primary.sign(TokenForge.claims(issuedAt: Date().addingTimeInterval(-1000), expiresAt: Date().addingTimeInterval(-120))) }),
        ("wrong issuer", { try await TestSigningKey.primary.sign(TokenForge.claims(issuer: "someone-else")) }),
        ("wrong audience", { try await TestSigningKey.primary.sign(TokenForge.claims(audience: "another-platform")) }),
        ("unknown key", { try await TestSigningKey.rotated.sign(TokenForge.claims()) }),
        ("tampered payload", { try TokenForge.tampered(try await TestSigningKey.primary.sign(TokenForge.claims()), with: TokenForge.claims(role: .admin)) }),
        ("alg none", { try TokenForge.unsigned(kid: TestSigningKey.primary.kid) }),
        ("HS256 with the public key", { try await TokenForge.hmacWithPublicKey(TestSigningKey.primary) }),
        ("garbage", { "not.a.jwt" }),
    ]

    @Test("a bad or expired token is 401 invalid-token at the edge and no service sees the request")
    func badTokensAreRefusedAtTheEdge() async throws {
        let hits = Hits()
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management", hits: hits), "auth": .echo("auth", hits: hits)]) { (gateway: GatewayHarness) async throws in
            for (name, make) in Self.brokenTokens {
                for path in ["/v1/me/tours", "/v1/tours", "/v1/users/me"] {
                    let answer = try await gateway.send(.GET, path, headers: [("Authorization", "Bearer \(try await make())")])
                    #expect(answer.status == 401, "\(name) on \(path)")
                    #expect(try answer.problem().code == "invalid-token", "\(name)")
                    #expect(answer.header("www-authenticate")?.contains("invalid_token") == true)
                }
            }
        }
        #expect(hits.value == 0)
    }

    @Test("a valid token passes, and the service receives the original Authorization header to verify again")
    func validTokenIsForwarded() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")]) { (gateway: GatewayHarness) async throws in
            let token = try await TokenForge.valid(role: .guide)
            let answer = try await gateway.send(.GET, "/v1/guides/me/tours", headers: [("Authorization", "Bearer \(token)")])
            #expect(answer.status == 200)
            #expect(try answer.json(Echo.self).headers["authorization"] == "Bearer \(token)")
        }
    }

    @Test("a request without credentials passes: the service decides")
    func anonymousRequestsPass() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")]) { (gateway: GatewayHarness) async throws in
            let answer = try await gateway.send(.GET, "/v1/me/favourites")
            #expect(answer.status == 200)
            #expect(try answer.json(Echo.self).headers["authorization"] == nil)
        }
    }

    @Test("keys come from auth's JWKS over HTTP, cached, and are refetched when a token names a new kid")
    func keysComeFromAuthsJWKS() async throws {
        let jwks = JWKSEndpoint(keys: [TestSigningKey.primary])
        let authStandIn = StandIn { jwks.router() }
        // A first gateway with the production default (the provider built from JWKS_URL) proves the wiring; the
        // rotation is checked with a provider whose 10 s refetch floor is lifted, so the test need not wait.
        try await GatewayHarness.run(upstreams: ["auth": authStandIn], configure: { configuration in
            let auth = configuration.endpoints.baseURL(of: "auth")!.absoluteString
            configuration.service.jwksURL = auth + "/.well-known/jwks.json"
            configuration.endpoints.baseURLs["tour-management"] = URL(string: auth)!
        }, keySource: nil) { (gateway: GatewayHarness) async throws in
            let answer = try await gateway.send(.GET, "/v1/me/tours", headers: [("Authorization", "Bearer \(try await TokenForge.valid())")])
            #expect(answer.status == 404, "verified at the edge, then answered by the stand-in, which has no such route")
            #expect(jwks.requests == 1)
        }
        try await LoopbackServer.run(router: jwks.router()) { authPort in
            let provider = JWKSProvider(url: "http://127.0.0.1:\(authPort)/.well-known/jwks.json", minimumRefetchInterval: .zero)
            try await Self.rotation(jwks: jwks, provider: provider, authPort: authPort)
        }
    }

    static func rotation(jwks: JWKSEndpoint, provider: JWKSProvider, authPort: Int) async throws {
        let fetchesBefore = jwks.requests
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")], configure: { configuration in
            configuration.endpoints.baseURLs["auth"] = URL(string: "http://127.0.0.1:\(authPort)")!
        }, keySource: provider) { (gateway: GatewayHarness) async throws in
            let first = try await gateway.send(.GET, "/v1/me/tours", headers: [("Authorization", "Bearer \(try await TokenForge.valid())")])
            #expect(first.status == 200)
            let second = try await gateway.send(.GET, "/v1/me/tours", headers: [("Authorization", "Bearer \(try await TokenForge.valid())")])
            #expect(second.status == 200)
            #expect(jwks.requests == fetchesBefore + 1, "keys are cached")
            // auth rotates its key: the gateway fetches the key set again for the unknown kid.
            jwks.publish([TestSigningKey.primary, TestSigningKey.rotated])
            let rotated = try await TestSigningKey.rotated.sign(TokenForge.claims())
            let third = try await gateway.send(.GET, "/v1/me/tours", headers: [("Authorization", "Bearer \(rotated)")])
            #expect(third.status == 200)
            #expect(jwks.requests == fetchesBefore + 2)
            // The key set itself is public through the gateway.
            let keySet = try await gateway.send(.GET, "/.well-known/jwks.json")
            #expect(keySet.status == 200)
            #expect(keySet.text.contains(TestSigningKey.rotated.kid))
        }
    }
}
