import Contracts
import _CryptoExtras
import Crypto
import Foundation
import JWTKit
import ServiceKit

/// An access token just issued.
public struct IssuedAccessToken: Sendable, Hashable {
    /// The compact JWS (`header.payload.signature`).
    public let token: String
    /// Its unique id (`jti`).
    public let tokenId: String
    /// When it expires (`exp`, whole seconds).
    public let expiresAt: Date

    /// Creates a value; ``AccessTokenIssuer`` produces them.
    public init(token: String, tokenId: String, expiresAt: Date) {
        self.token = token
        self.tokenId = tokenId
        self.expiresAt = expiresAt
    }
}

/// Issues Waypoint access tokens: RS256 JWTs signed with the ring's current key, which ServiceKit's
/// `AccessTokenVerifier` accepts.
///
/// Header `{"alg":"RS256","kid":…,"typ":"JWT"}`; claims `sub`, `role`, `sid`, `jti`, `iss`, `aud`, `iat`, `exp`
/// (``AccessTokenClaims``), times in whole seconds. The token is built and signed (RSASSA-PKCS1-v1_5 with SHA-256)
/// on the caller's task — only fetching the key touches the ring's actor — so issuing scales with cores.
public struct AccessTokenIssuer: Sendable {
    /// The keys that sign.
    public let keyRing: SigningKeyRing
    /// `iss` of every token.
    public let issuer: String
    /// `aud` of every token.
    public let audience: String
    /// Time from `iat` to `exp`; at most the ring's `tokenLifetime`, which keeps retired keys published long enough.
    public let lifetime: Duration
    private let now: @Sendable () -> Date

    /// Creates an issuer.
    ///
    /// - Precondition: `lifetime` is positive and not longer than `keyRing.tokenLifetime`.
    public init(
        keyRing: SigningKeyRing,
        issuer: String,
        audience: String,
        lifetime: Duration = .seconds(900),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        precondition(lifetime > .zero && lifetime <= keyRing.tokenLifetime,
            "access-token lifetime must be positive and at most the signing key ring's tokenLifetime")
        self.keyRing = keyRing
        self.issuer = issuer
        self.audience = audience
        self.lifetime = lifetime
        self.now = now
    }

    /// Signs a token for `subject` with `role` in session `sessionId`, with a fresh random `jti`.
    ///
    /// - Throws: ``SigningKeyRingError/noActiveKey`` when the ring has not started; signing errors.
    public func issue(subject: String, role: Role, sessionId: String) async throws -> IssuedAccessToken {
        let (kid, key) = try await keyRing.signingKey()
        let issuedAt = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        let expiresAt = issuedAt.addingTimeInterval(lifetime.timeInterval.rounded(.down))
        let tokenId = KeyIdentifiers.random()
        let claims = AccessTokenClaims(
            subject: subject, role: role, sessionId: sessionId, tokenId: tokenId,
            issuer: issuer, audience: audience, issuedAt: issuedAt, expiresAt: expiresAt)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .integerSecondsSince1970
        let header = try encoder.encode(Header(alg: "RS256", kid: kid, typ: "JWT"))
        let payload = try encoder.encode(claims)
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = try key.signature(for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return IssuedAccessToken(
            token: signingInput + "." + Base64URL.encode(signature.rawRepresentation),
            tokenId: tokenId,
            expiresAt: expiresAt)
    }

    /// The protected JOSE header.
    private struct Header: Encodable {
        let alg: String
        let kid: String
        let typ: String
    }
}
