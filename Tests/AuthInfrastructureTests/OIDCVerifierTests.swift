import AuthInfrastructure
import Foundation
import JWTKit
import ServiceTesting
import Testing

@Suite("OIDCVerifier accepts genuine Google and Apple ID tokens and refuses forged ones")
struct OIDCVerifierTests {
    /// A verifier for Google and Apple whose key sets are served by `endpoint`.
    func withVerifier(
        leeway: Duration = .seconds(60),
        _ body: @Sendable (OIDCVerifier, JWKSEndpoint) async throws -> Void
    ) async throws {
        let endpoint = JWKSEndpoint(keys: [.ssoProvider])
        try await LoopbackServer.run(router: endpoint.router()) { port in
            let url = "http://127.0.0.1:\(port)/.well-known/jwks.json"
            let verifier = OIDCVerifier(
                providers: [
                    .google(clientIDs: ["ios.apps.googleusercontent.com", IDTokenClaims.googleClientID], jwksURL: url),
                    .apple(clientIDs: [IDTokenClaims.appleClientID], jwksURL: url),
                ],
                leeway: leeway
            )
            try await body(verifier, endpoint)
        }
    }

    @Test("a valid Google ID token yields the subject, verified e-mail and name")
    func validGoogleToken() async throws {
        try await withVerifier { verifier, endpoint in
            let token = try await TestSigningKey.ssoProvider.sign(payload: IDTokenClaims.google())
            let identity = try await verifier.verify(idToken: token, provider: "google")
            #expect(identity == OIDCIdentity(
                provider: "google", subject: "110169484474386276334", email: "ada@example.com", emailVerified: true, name: "Ada Lovelace"))
            _ = try await verifier.verify(idToken: token, provider: "google")
            #expect(endpoint.requests == 1, "the key set is cached")
        }
    }

    @Test("a valid Apple ID token with email_verified as the string \"true\" and aud as an array is accepted")
    func validAppleToken() async throws {
        try await withVerifier { verifier, _ in
            let token = try await TestSigningKey.ssoProvider.sign(payload: IDTokenClaims.apple())
            let identity = try await verifier.verify(idToken: token, provider: "apple")
            #expect(identity.provider == "apple")
            #expect(identity.subject == "001234.abcdef0123456789.0042")
            #expect(identity.email == "x7gq@privaterelay.appleid.com")
            #expect(identity.emailVerified)
            #expect(identity.name == nil)

            var unverified = IDTokenClaims.apple()
            unverified.emailVerified = .string("false")
            let second = try await verifier.verify(idToken: try await TestSigningKey.ssoProvider.sign(payload: unverified), provider: "apple")
            #expect(!second.emailVerified)
        }
    }

    @Test("Google's issuer without a scheme is accepted too")
    func googleIssuerWithoutScheme() async throws {
        try await withVerifier { verifier, _ in
            var claims = IDTokenClaims.google()
            claims.iss = "accounts.google.com"
            let identity = try await verifier.verify(idToken: try await TestSigningKey.ssoProvider.sign(payload: claims), provider: "google")
            #expect(identity.subject == claims.sub)
        }
    }

    @Test("an unsigned token (alg none) is refused")
    func algNone() async throws {
        try await withVerifier { verifier, _ in
            let token = try TokenForge.unsigned(kid: TestSigningKey.ssoProvider.kid, claims: IDTokenClaims.google())
            await #expect(throws: OIDCError.unsupportedAlgorithm) { try await verifier.verify(idToken: token, provider: "google") }
        }
    }

    @Test("HS256 signed with the provider's public key is refused")
    func hmacKeyConfusion() async throws {
        try await withVerifier { verifier, _ in
            let token = try await TokenForge.hmacWithPublicKey(.ssoProvider, claims: IDTokenClaims.google())
            await #expect(throws: OIDCError.unsupportedAlgorithm) { try await verifier.verify(idToken: token, provider: "google") }
        }
    }

    @Test("an expired token is refused, one expired within the leeway is accepted")
    func expired() async throws {
        try await withVerifier { verifier, _ in
            let now = Date()
            var claims = IDTokenClaims.google(now: now.addingTimeInterval(-7200))
            claims.exp = now.addingTimeInterval(-3600)
            let expired = try await TestSigningKey.ssoProvider.sign(payload: claims)
            await #expect(throws: OIDCError.expired) { try await verifier.verify(idToken: expired, provider: "google") }

            claims.exp = now.addingTimeInterval(-30)
            let withinLeeway = try await TestSigningKey.ssoProvider.sign(payload: claims)
            _ = try await verifier.verify(idToken: withinLeeway, provider: "google")
        }
    }

    @Test("a token whose nbf is in the future is refused")
    func notYetValid() async throws {
        try await withVerifier { verifier, _ in
            var claims = IDTokenClaims.google()
            claims.nbf = Date().addingTimeInterval(600)
            let token = try await TestSigningKey.ssoProvider.sign(payload: claims)
            await #expect(throws: OIDCError.notYetValid) { try await verifier.verify(idToken: token, provider: "google") }
        }
    }

    @Test("a token issued in the future is refused")
    func issuedInFuture() async throws {
        try await withVerifier { verifier, _ in
            var claims = IDTokenClaims.google()
            claims.iat = Date().addingTimeInterval(600)
            let token = try await TestSigningKey.ssoProvider.sign(payload: claims)
            await #expect(throws: OIDCError.issuedInFuture) { try await verifier.verify(idToken: token, provider: "google") }
        }
    }

    @Test("an Apple token presented as Google (wrong issuer) is refused")
    func wrongIssuer() async throws {
        try await withVerifier { verifier, _ in
            var claims = IDTokenClaims.apple()
            claims.aud = [IDTokenClaims.googleClientID]
            let token = try await TestSigningKey.ssoProvider.sign(payload: claims)
            await #expect(throws: OIDCError.wrongIssuer) { try await verifier.verify(idToken: token, provider: "google") }
        }
    }

    @Test("a token for another app (wrong audience) is refused")
    func wrongAudience() async throws {
        try await withVerifier { verifier, _ in
            var claims = IDTokenClaims.google()
            claims.aud = ["someone-else.apps.googleusercontent.com"]
            let token = try await TestSigningKey.ssoProvider.sign(payload: claims)
            await #expect(throws: OIDCError.wrongAudience) { try await verifier.verify(idToken: token, provider: "google") }
        }
    }

    @Test("a token signed by a key the provider does not publish (unknown kid) is refused")
    func unknownKeyID() async throws {
        try await withVerifier { verifier, _ in
            let token = try await TestSigningKey.ssoStranger.sign(payload: IDTokenClaims.google())
            await #expect(throws: OIDCError.unknownKeyID) { try await verifier.verify(idToken: token, provider: "google") }
        }
    }

    @Test("a tampered payload fails the signature check")
    func tamperedPayload() async throws {
        try await withVerifier { verifier, _ in
            let token = try await TestSigningKey.ssoProvider.sign(payload: IDTokenClaims.google())
            var claims = IDTokenClaims.google()
            claims.sub = "victim"
            let tampered = try TokenForge.tampered(token, with: claims)
            await #expect(throws: OIDCError.badSignature) { try await verifier.verify(idToken: tampered, provider: "google") }
        }
    }

    @Test("an unconfigured provider is refused before anything else")
    func unknownProvider() async throws {
        try await withVerifier { verifier, endpoint in
            let token = try await TestSigningKey.ssoProvider.sign(payload: IDTokenClaims.google())
            await #expect(throws: OIDCError.unknownProvider) { try await verifier.verify(idToken: token, provider: "facebook") }
            #expect(endpoint.requests == 0)
        }
    }

    @Test("malformed tokens and an empty subject are refused")
    func malformedAndMissingSubject() async throws {
        try await withVerifier { verifier, _ in
            for token in ["", "abc", "a.b", "a.b.c.d", "!!.??.x", "e30.e30.", "bm90IGpzb24.e30.sig"] {
                await #expect(throws: OIDCError.malformed) { try await verifier.verify(idToken: token, provider: "google") }
            }
            var claims = IDTokenClaims.google()
            claims.sub = ""
            let token = try await TestSigningKey.ssoProvider.sign(payload: claims)
            await #expect(throws: OIDCError.missingSubject) { try await verifier.verify(idToken: token, provider: "google") }
        }
    }

    @Test("a nonce, when expected, must match the token's")
    func nonce() async throws {
        try await withVerifier { verifier, _ in
            var claims = IDTokenClaims.apple()
            claims.nonce = "n-0S6_WzA2Mj"
            let token = try await TestSigningKey.ssoProvider.sign(payload: claims)
            _ = try await verifier.verify(idToken: token, provider: "apple", nonce: "n-0S6_WzA2Mj")
            await #expect(throws: OIDCError.nonceMismatch) { try await verifier.verify(idToken: token, provider: "apple", nonce: "other") }
        }
    }

    @Test("an unreachable key set is keysUnavailable, not a rejection of the token")
    func keysUnavailable() async throws {
        // Port 9 (discard) is closed on loopback; the HTTP client retries until the fetch timeout.
        let verifier = OIDCVerifier(
            providers: [.google(clientIDs: [IDTokenClaims.googleClientID], jwksURL: "http://127.0.0.1:9/certs")],
            keyFetchTimeout: .seconds(1)
        )
        let token = try await TestSigningKey.ssoProvider.sign(payload: IDTokenClaims.google())
        await #expect(throws: OIDCError.keysUnavailable) { try await verifier.verify(idToken: token, provider: "google") }
    }

    @Test("the clock is injectable")
    func injectedClock() async throws {
        let endpoint = JWKSEndpoint(keys: [.ssoProvider])
        try await LoopbackServer.run(router: endpoint.router()) { port in
            let url = "http://127.0.0.1:\(port)/.well-known/jwks.json"
            let issued = Date(timeIntervalSince1970: 1_700_000_000)
            let verifier = OIDCVerifier(
                providers: [.google(clientIDs: [IDTokenClaims.googleClientID], jwksURL: url)],
                now: { issued.addingTimeInterval(120) }
            )
            let token = try await TestSigningKey.ssoProvider.sign(payload: IDTokenClaims.google(now: issued))
            #expect(try await verifier.verify(idToken: token, provider: "google").subject == "110169484474386276334")
        }
    }
}
