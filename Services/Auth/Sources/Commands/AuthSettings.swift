import Foundation

/// The rules of sessions, lockout and password reset; defaults are the product's.
public struct AuthSettings: Sendable, Hashable {
    /// How long a refresh token (and so an idle session) lives: 7 days.
    public var refreshTokenLifetime: Duration = .seconds(7 * 24 * 3600)
    /// Live sessions per user; a login beyond revokes the oldest.
    public var maximumSessionsPerUser = 5
    /// Consecutive failed logins that lock the account.
    public var lockoutThreshold = 10
    /// How long a lockout lasts.
    public var lockoutDuration: Duration = .seconds(15 * 60)
    /// How long a password-reset token is valid.
    public var resetTokenLifetime: Duration = .seconds(30 * 60)
    /// Base of the link in password-reset mails, e.g. `https://app.waypoint.example`.
    public var publicBaseURL = "http://localhost:8080"

    public init() {}
}
