import Foundation

// The published language of `auth` on `waypoint.auth`. No event carries a secret, and personal data (username, email,
// names, licence numbers) travels only as `SealedPersonalData`, sealed with the user's own key: once `UserErased` is
// published and the key destroyed, no copy of these events reveals the person. Consumers that show a name keep their
// own copy and must drop it on `UserErased`.

/// How an account was created or a session started.
public enum AuthenticationMethod: String, Codable, Sendable, Hashable, CaseIterable {
    /// Email and password.
    case password
    /// OpenID Connect ID token from Google.
    case google
    /// OpenID Connect ID token from Sign in with Apple.
    case apple
}

/// A new account exists.
public struct UserRegistered: IntegrationEvent {
    public static let eventType = "UserRegistered"
    public static let schemaVersion = 1
    public static let topic = Topic.auth

    public var userId: UUID
    public var username: SealedPersonalData
    public var email: SealedPersonalData
    /// `traveller` or `guide` (other roles are granted later).
    public var role: UserRole
    /// A guide's licence number, when given.
    public var licenceNumber: SealedPersonalData?
    public var method: AuthenticationMethod
    public var registeredAt: Date

    public init(userId: UUID, username: SealedPersonalData, email: SealedPersonalData, role: UserRole,
                licenceNumber: SealedPersonalData?, method: AuthenticationMethod, registeredAt: Date) {
        self.userId = userId
        self.username = username
        self.email = email
        self.role = role
        self.licenceNumber = licenceNumber
        self.method = method
        self.registeredAt = registeredAt
    }
}

/// The user's profile after a change: every field is the new full value (`nil` = not set).
public struct UserProfileUpdated: IntegrationEvent {
    public static let eventType = "UserProfileUpdated"
    public static let schemaVersion = 1
    public static let topic = Topic.auth

    public var userId: UUID
    public var displayName: SealedPersonalData?
    public var avatarUrl: SealedPersonalData?
    public var homeCurrency: CurrencyCode?
    /// BCP 47 language tag, e.g. `de-AT`.
    public var language: String?
    public var updatedAt: Date

    public init(userId: UUID, displayName: SealedPersonalData?, avatarUrl: SealedPersonalData?, homeCurrency: CurrencyCode?,
                language: String?, updatedAt: Date) {
        self.userId = userId
        self.displayName = displayName
        self.avatarUrl = avatarUrl
        self.homeCurrency = homeCurrency
        self.language = language
        self.updatedAt = updatedAt
    }
}

/// An administrator (or the operator's `create-admin` command, `grantedBy` nil) granted a role.
public struct RoleGranted: IntegrationEvent {
    public static let eventType = "RoleGranted"
    public static let schemaVersion = 1
    public static let topic = Topic.auth

    public var userId: UUID
    public var role: UserRole
    public var grantedBy: UUID?
    public var grantedAt: Date

    public init(userId: UUID, role: UserRole, grantedBy: UUID?, grantedAt: Date) {
        self.userId = userId
        self.role = role
        self.grantedBy = grantedBy
        self.grantedAt = grantedAt
    }
}

/// An administrator revoked a granted role.
public struct RoleRevoked: IntegrationEvent {
    public static let eventType = "RoleRevoked"
    public static let schemaVersion = 1
    public static let topic = Topic.auth

    public var userId: UUID
    public var role: UserRole
    public var revokedBy: UUID?
    public var revokedAt: Date

    public init(userId: UUID, role: UserRole, revokedBy: UUID?, revokedAt: Date) {
        self.userId = userId
        self.role = role
        self.revokedBy = revokedBy
        self.revokedAt = revokedAt
    }
}

/// The account may no longer log in; its sessions are revoked (each with its own `SessionRevoked`).
public struct UserSuspended: IntegrationEvent {
    public static let eventType = "UserSuspended"
    public static let schemaVersion = 1
    public static let topic = Topic.auth

    public var userId: UUID
    public var suspendedBy: UUID?
    public var suspendedAt: Date

    public init(userId: UUID, suspendedBy: UUID?, suspendedAt: Date) {
        self.userId = userId
        self.suspendedBy = suspendedBy
        self.suspendedAt = suspendedAt
    }
}

/// A suspended account may log in again.
public struct UserReactivated: IntegrationEvent {
    public static let eventType = "UserReactivated"
    public static let schemaVersion = 1
    public static let topic = Topic.auth

    public var userId: UUID
    public var reactivatedBy: UUID?
    public var reactivatedAt: Date

    public init(userId: UUID, reactivatedBy: UUID?, reactivatedAt: Date) {
        self.userId = userId
        self.reactivatedBy = reactivatedBy
        self.reactivatedAt = reactivatedAt
    }
}

/// The person asked to be forgotten: their key is destroyed, and every consumer deletes what it holds about them.
public struct UserErased: IntegrationEvent {
    public static let eventType = "UserErased"
    public static let schemaVersion = 1
    public static let topic = Topic.auth

    public var userId: UUID
    public var erasedAt: Date

    public init(userId: UUID, erasedAt: Date) {
        self.userId = userId
        self.erasedAt = erasedAt
    }
}

/// Why a password changed.
public enum PasswordChangeReason: String, Codable, Sendable, Hashable, CaseIterable {
    /// The logged-in user changed it, giving the current one.
    case changed
    /// Through a password-reset token; every session was revoked.
    case reset
}

/// The password changed (the hash itself is never published).
public struct PasswordChanged: IntegrationEvent {
    public static let eventType = "PasswordChanged"
    public static let schemaVersion = 1
    public static let topic = Topic.auth

    public var userId: UUID
    public var reason: PasswordChangeReason
    public var changedAt: Date

    public init(userId: UUID, reason: PasswordChangeReason, changedAt: Date) {
        self.userId = userId
        self.reason = reason
        self.changedAt = changedAt
    }
}
