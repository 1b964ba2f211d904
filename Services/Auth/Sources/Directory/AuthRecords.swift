import Contracts
import Foundation

/// Where an account stands.
public enum AccountStatus: String, Codable, Sendable, Hashable {
    case active
    case suspended
    case erased
}

/// One user as folded from the log: the state commands decide on (with the stream version for optimistic concurrency)
/// and the answers of the read endpoints. Personal fields are the opened plaintext; `nil` once erased.
public struct UserRecord: Sendable, Hashable {
    public var id: UUID
    /// Version of the `user-<id>` stream this record reflects.
    public var version: Int64
    public var username: String?
    public var email: String?
    /// The role chosen at registration (`traveller` or `guide`).
    public var baseRole: UserRole
    /// Roles granted on top (`moderator`, `admin`).
    public var grantedRoles: Set<UserRole>
    public var licenceNumber: String?
    public var method: AuthenticationMethod
    public var registeredAt: Date
    public var status: AccountStatus
    public var passwordHash: String?
    public var consecutiveFailures: Int
    public var lockedUntil: Date?
    public var resetTokenHash: String?
    public var resetExpiresAt: Date?
    public var displayName: String?
    public var avatarUrl: String?
    public var homeCurrency: CurrencyCode?
    public var language: String?
    /// `provider:subject` of linked OpenID Connect identities.
    public var externalIdentities: Set<String>

    /// The role access tokens carry: the highest of the granted roles, else the base role.
    public var effectiveRole: UserRole {
        if grantedRoles.contains(.admin) { return .admin }
        if grantedRoles.contains(.moderator) { return .moderator }
        return baseRole
    }

    /// Whether the account is locked at `now` after too many failed logins.
    public func isLocked(at now: Date) -> Bool {
        lockedUntil.map { $0 > now } ?? false
    }
}

/// One session as folded from the log.
public struct SessionRecord: Sendable, Hashable {
    public var id: UUID
    public var userId: UUID
    /// Version of the `session-<id>` stream this record reflects.
    public var version: Int64
    public var method: AuthenticationMethod
    public var deviceId: String?
    public var startedAt: Date
    /// When the current refresh token expires (the session ends then unless refreshed).
    public var expiresAt: Date
    public var lastRefreshedAt: Date
    /// SHA-256 (hex) of the current refresh token.
    public var currentTokenHash: String
    /// Hashes of every earlier refresh token of this session: presenting one is reuse.
    public var previousTokenHashes: Set<String>
    public var generation: Int
    public var revocation: SessionRevocationReason?
    public var revokedAt: Date?

    /// Whether the session can still be refreshed at `now`.
    public func isLive(at now: Date) -> Bool {
        revocation == nil && expiresAt > now
    }
}

/// A uniqueness claim (`reservation-<kind>-<hash>` stream).
struct ReservationRecord: Sendable, Hashable {
    var kind: ReservationKind
    var userId: UUID
    var claimed: Bool
    var claimedAt: Date
    var version: Int64
}
