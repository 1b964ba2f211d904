import Foundation

/// A login created a session (refresh tokens and devices stay inside `auth`).
public struct SessionStarted: IntegrationEvent {
    public static let eventType = "SessionStarted"
    public static let schemaVersion = 1
    public static let topic = Topic.auth

    public var sessionId: UUID
    public var userId: UUID
    public var method: AuthenticationMethod
    public var startedAt: Date
    /// When the session ends unless its refresh token is used before.
    public var expiresAt: Date

    public init(sessionId: UUID, userId: UUID, method: AuthenticationMethod, startedAt: Date, expiresAt: Date) {
        self.sessionId = sessionId
        self.userId = userId
        self.method = method
        self.startedAt = startedAt
        self.expiresAt = expiresAt
    }
}

/// Why a session ended before it expired.
public enum SessionRevocationReason: String, Codable, Sendable, Hashable, CaseIterable {
    /// `POST /v1/auth/logout`.
    case logout
    /// The user revoked it from the sessions list.
    case revokedByUser
    /// A sixth login revoked the oldest of five live sessions.
    case sessionLimit
    /// A refresh token was used a second time: the session is presumed stolen.
    case refreshTokenReuse
    /// The password changed; other sessions end.
    case passwordChanged
    /// The password was reset; every session ends.
    case passwordReset
    /// An administrator suspended the account.
    case userSuspended
    /// The account was erased.
    case userErased
}

/// A session ended early; its refresh token no longer works (access tokens expire on their own within 15 minutes).
public struct SessionRevoked: IntegrationEvent {
    public static let eventType = "SessionRevoked"
    public static let schemaVersion = 1
    public static let topic = Topic.auth

    public var sessionId: UUID
    public var userId: UUID
    public var reason: SessionRevocationReason
    public var revokedAt: Date

    public init(sessionId: UUID, userId: UUID, reason: SessionRevocationReason, revokedAt: Date) {
        self.sessionId = sessionId
        self.userId = userId
        self.reason = reason
        self.revokedAt = revokedAt
    }
}
