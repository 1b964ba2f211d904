#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The caller of a request, as proven by a verified access token.
public struct AuthenticatedIdentity: Sendable, Hashable {
    /// The user id (`sub`).
    public let subject: String
    /// The user's role (`role`).
    public let role: Role
    /// The session the token belongs to (`sid`); revoking the session revokes its tokens.
    public let sessionId: String
    /// The token's unique id (`jti`).
    public let tokenId: String
    /// When the token expires (`exp`).
    public let expiresAt: Date

    /// Creates an identity; production code gets it from ``AccessTokenVerifier``.
    public init(subject: String, role: Role, sessionId: String, tokenId: String, expiresAt: Date) {
        self.subject = subject
        self.role = role
        self.sessionId = sessionId
        self.tokenId = tokenId
        self.expiresAt = expiresAt
    }
}
