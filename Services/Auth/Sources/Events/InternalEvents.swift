import Contracts
import EventSourcing
import Foundation

// Events that stay inside `auth`: they are in its log (the source of truth for credentials, lockout, refresh-token
// rotation and uniqueness claims) but never published — the relay and the embedded feed publish only the published
// language in `Contracts` (see `AuthEvents.isPublished`). Secrets appear only as one-way hashes or sealed with the
// user's key, so erasure destroys them too.

/// The password hash (bcrypt), sealed with the user's key. Appended with `UserRegistered` and `PasswordChanged`.
struct PasswordHashSet: EventPayload {
    static let eventType = "PasswordHashSet"
    var userId: UUID
    var passwordHash: SealedPersonalData
    var setAt: Date
}

/// A login with the right email and a wrong password.
struct LoginFailed: EventPayload {
    static let eventType = "LoginFailed"
    var userId: UUID
    var failedAt: Date
    /// Consecutive failures including this one.
    var consecutiveFailures: Int
    /// Set when this failure locked the account.
    var lockedUntil: Date?
}

/// A successful login: resets the consecutive-failure count.
struct LoginSucceeded: EventPayload {
    static let eventType = "LoginSucceeded"
    var userId: UUID
    var sessionId: UUID
    var succeededAt: Date
}

/// A password-reset token was sent; only its SHA-256 is kept. A newer request replaces an older token.
struct PasswordResetRequested: EventPayload {
    static let eventType = "PasswordResetRequested"
    var userId: UUID
    var tokenHash: String
    var requestedAt: Date
    var expiresAt: Date
}

/// An external identity (OpenID Connect `iss` + `sub`) now logs in as this user; the subject is sealed.
struct ExternalIdentityLinked: EventPayload {
    static let eventType = "ExternalIdentityLinked"
    var userId: UUID
    var provider: AuthenticationMethod
    var subject: SealedPersonalData
    var linkedAt: Date
}

/// A refresh token for the session: issued at login and on every rotation. Only its SHA-256 is kept; the device id is
/// sealed with the user's key, and carried only by the first token of a session (a session stays bound to its device).
struct RefreshTokenIssued: EventPayload {
    static let eventType = "RefreshTokenIssued"
    var sessionId: UUID
    var userId: UUID
    var tokenHash: String
    var generation: Int
    var deviceId: SealedPersonalData?
    var issuedAt: Date
    var expiresAt: Date
}

/// What a uniqueness claim is about.
enum ReservationKind: String, Codable, Sendable {
    case username
    case email
}

/// A username or email is claimed by a user (stream `reservation-<kind>-<sha256 of the normalised value>`).
struct ReservationClaimed: EventPayload {
    static let eventType = "ReservationClaimed"
    var kind: ReservationKind
    var userId: UUID
    var claimedAt: Date
}

/// A claim was given back (registration failed half-way, or the user was erased).
struct ReservationReleased: EventPayload {
    static let eventType = "ReservationReleased"
    var kind: ReservationKind
    var userId: UUID
    var releasedAt: Date
}
