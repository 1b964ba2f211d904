import Foundation
import HTTPTypes
import HummingbirdTesting
import ServiceKit
import ServiceTesting
import Testing

/// A token that must be refused, and why.
enum BrokenToken: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case expired, notYetValid, issuedInFuture, wrongIssuer, wrongAudience, unknownKid, tamperedPayload, algNone, hs256WithPublicKey, garbage

    var testDescription: String { rawValue }

    func make() async throws -> String {
        let key = TestSigningKey.primary
        let now = Date()
        switch self {
        case .expired: return try await key.sign(TokenForge.claims(issuedAt: now.addingTimeInterval(-1000), expiresAt: now.addingTimeInterval(-120)))
        case .notYetValid: return try await key.sign(TokenForge.claims(notBefore: now.addingTimeInterval(300)))
        case .issuedInFuture: return try await key.sign(TokenForge.claims(issuedAt: now.addingTimeInterval(600), expiresAt: now.addingTimeInterval(1500)))
        case .wrongIssuer: return try await key.sign(TokenForge.claims(issuer: "someone-else"))
        case .wrongAudience: return try await key.sign(TokenForge.claims(audience: "another-platform"))
        case .unknownKid: return try await TestSigningKey.rotated.sign(TokenForge.claims())
        case .tamperedPayload: return try TokenForge.tampered(try await key.sign(TokenForge.claims()), with: TokenForge.claims(role: .admin))
        case .algNone: return try TokenForge.unsigned(kid: key.kid)
        case .hs256WithPublicKey: return try await TokenForge.hmacWithPublicKey(key)
        case .garbage: return "not.a.jwt"
        }
    }

    var expectedError: AccessTokenError {
        switch self {
        case .expired: .expired
        case .notYetValid: .notYetValid
        case .issuedInFuture: .issuedInFuture
        case .wrongIssuer: .wrongIssuer("someone-else")
        case .wrongAudience: .wrongAudience(["another-platform"])
        case .unknownKid: .unknownKeyID(TestSigningKey.rotated.kid)
        case .tamperedPayload: .invalidSignatureOrClaims
        case .algNone: .unsupportedAlgorithm("none")
        case .hs256WithPublicKey: .unsupportedAlgorithm("HS256")
        case .garbage: .malformed
        }
    }
}

@Suite("Access tokens: RS256 JWTs against the JWK Set")
struct AccessTokenTests {
    let verifier = AccessTokenVerifier(
        keys: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
        issuer: TokenForge.issuer,
        audience: TokenForge.audience
    )

    @Test("a valid token authenticates the caller")
    func validToken() async throws {
        let token = try await TokenForge.valid(role: .guide)
        let identity = try await verifier.verify(token)
        #expect(identity.subject == "user-42")
        #expect(identity.role == .guide)
        #expect(identity.sessionId == "session-7")
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(response.status == .ok)
            #expect(try response.json(IdentityEcho.self).subject == "user-42")
        }
    }

    @Test("a token expired by less than the 60 s leeway is still accepted")
    func leeway() async throws {
        let token = try await TestSigningKey.primary.sign(TokenForge.claims(expiresAt: Date().addingTimeInterval(-30)))
        let identity = try await verifier.verify(token)
        #expect(identity.subject == "user-42")
    }

    @Test("a broken token is refused for the right reason", arguments: BrokenToken.allCases)
    func refusedForTheRightReason(_ broken: BrokenToken) async throws {
        let token = try await broken.make()
        await #expect(throws: broken.expectedError) { try await verifier.verify(token) }
    }

    @Test("a broken token on a protected route is 401 invalid_token", arguments: BrokenToken.allCases)
    func brokenTokenIs401(_ broken: BrokenToken) async throws {
        let token = try await broken.make()
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(response.status == .unauthorized)
            #expect(try response.problem().code == "invalid-token")
            #expect(response.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
        }
    }

    @Test("no token on a protected route is 401 with a Bearer challenge")
    func missingToken() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/me", method: .get)
            #expect(response.status == .unauthorized)
            #expect(try response.problem().code == "unauthenticated")
            #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
        }
    }

    @Test("a non-Bearer Authorization header is 401")
    func wrongScheme() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Basic dXNlcjpwYXNz"])
            #expect(response.status == .unauthorized)
        }
    }

    @Test("the Bearer scheme in any case, blanks around the token; other shapes of the header are 401")
    func headerShapes() async throws {
        let token = try await TokenForge.valid()
        try await TestApplication.make().test(.router) { client in
            for header in ["Bearer \(token)", "bearer \(token)", "BEARER \(token)", "BeArEr   \(token)", " \tBearer \(token)\t ", "Bearer \t\(token)"] {
                let response = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: header])
                #expect(response.status == .ok, "\(header.prefix(12))")
            }
            for header in ["Bearer", "Bearer ", "Bearer    ", "Bearer\t\(token)", "Bearer \(token) extra", "Bearerx \(token)", "Basic \(token)",
                           "Bearér \(token)", "Bearer \(token)é"] {
                let response = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: header])
                #expect(response.status == .unauthorized, "\(header.prefix(12))")
            }
        }
    }

    @Test("a caller without the required role is 403")
    func roleMismatch() async throws {
        let token = try await TokenForge.valid(role: .traveller)
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/v1/guide/tours", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(response.status == .forbidden)
            #expect(try response.problem().code == "insufficient-role")
        }
    }

    @Test("a caller with one of the allowed roles passes")
    func roleMatch() async throws {
        for role in [Role.guide, .admin] {
            let token = try await TokenForge.valid(role: role)
            try await TestApplication.make().test(.router) { client in
                let response = try await client.execute(uri: "/v1/guide/tours", method: .get, headers: [.authorization: "Bearer \(token)"])
                #expect(response.status == .ok)
            }
        }
    }
}
