import JWTKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The claims of a Waypoint access token, as `auth` signs them and every service reads them.
///
/// All are required except `nbf`. ``verify(using:)`` deliberately checks nothing: time and audience
/// checks need the leeway and expectations of ``AccessTokenVerifier``, which performs them.
public struct AccessTokenClaims: JWTPayload, Equatable {
    /// User id (`sub`).
    public var subject: SubjectClaim
    /// User role (`role`).
    public var role: Role
    /// Session id (`sid`).
    public var sessionId: String
    /// Unique token id (`jti`).
    public var tokenId: IDClaim
    /// Issuer (`iss`), `waypoint-auth` by default.
    public var issuer: IssuerClaim
    /// Audience (`aud`): a string or an array of strings.
    public var audience: AudienceClaim
    /// Issued at (`iat`), seconds since 1970.
    public var issuedAt: IssuedAtClaim
    /// Not before (`nbf`), seconds since 1970, optional.
    public var notBefore: NotBeforeClaim?
    /// Expiry (`exp`), seconds since 1970.
    public var expiresAt: ExpirationClaim

    private enum CodingKeys: String, CodingKey {
        case subject = "sub", role, sessionId = "sid", tokenId = "jti", issuer = "iss", audience = "aud"
        case issuedAt = "iat", notBefore = "nbf", expiresAt = "exp"
    }

    /// Creates claims; `auth` uses this to issue tokens, tests to forge them.
    public init(
        subject: String,
        role: Role,
        sessionId: String,
        tokenId: String,
        issuer: String,
        audience: String,
        issuedAt: Date,
        notBefore: Date? = nil,
        expiresAt: Date
    ) {
        self.subject = SubjectClaim(value: subject)
        self.role = role
        self.sessionId = sessionId
        self.tokenId = IDClaim(value: tokenId)
        self.issuer = IssuerClaim(value: issuer)
        self.audience = AudienceClaim(value: [audience])
        self.issuedAt = IssuedAtClaim(value: issuedAt)
        self.notBefore = notBefore.map { NotBeforeClaim(value: $0) }
        self.expiresAt = ExpirationClaim(value: expiresAt)
    }

    /// Checks nothing; ``AccessTokenVerifier`` validates times (with leeway), issuer and audience.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
