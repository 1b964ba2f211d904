import Contracts
import EventSourcing
import Foundation
import GRDB
import Messaging
import PostgresNIO

/// Whether an account may be shown: what tour-management knows of it from `waypoint.auth`.
public enum GuideAccountStatus: String, Codable, Sendable, Hashable, CaseIterable {
    /// Its public profile may be shown.
    case active
    /// An administrator suspended it: shown without a name until reactivated.
    case suspended
    /// The person was forgotten (terminal): only this tombstone remains.
    case erased
}

/// One row of `guide_accounts`: what tour-management holds about an account announced on `waypoint.auth`. No personal
/// data — the name is never stored, only asked of `auth` and cached in memory (``GuideProfiles``).
///
/// Every account gets a row (a traveller may become a reviewer, a row costs a few bytes, and erasure must be known for
/// everyone); events for an account whose registration was never seen (e.g. past the topic's retention) create it
/// with `role` nil.
public struct GuideAccount: Sendable, Hashable, Codable {
    public var userId: UUID
    /// The role the account registered with (`traveller` or `guide`); nil when unknown or erased.
    public var role: UserRole?
    /// Roles granted on top (moderator, admin); emptied on erasure.
    public var grantedRoles: Set<UserRole>
    public var status: GuideAccountStatus
    /// How many `UserProfileUpdated` were applied (0 after erasure).
    public var profileVersion: Int
    /// When the profile last changed (nil: never, or erased).
    public var profileUpdatedAt: Date?
    /// When the last applied event happened (the event's own timestamp, so every backend and every replay agree).
    public var updatedAt: Date

    public init(userId: UUID, role: UserRole?, grantedRoles: Set<UserRole> = [], status: GuideAccountStatus, profileVersion: Int = 0,
                profileUpdatedAt: Date? = nil, updatedAt: Date) {
        self.userId = userId
        self.role = role
        self.grantedRoles = grantedRoles
        self.status = status
        self.profileVersion = profileVersion
        self.profileUpdatedAt = profileUpdatedAt
        self.updatedAt = updatedAt
    }

    /// Whether the account registered as a guide.
    public var isGuide: Bool { role == .guide }

    var grantedRolesText: String { grantedRoles.map(\.rawValue).sorted().joined(separator: ",") }

    static func grantedRoles(_ text: String) -> Set<UserRole> {
        Set(text.split(separator: ",").compactMap { UserRole(rawValue: String($0)) })
    }
}

/// The `waypoint.auth` events tour-management reads (tolerant reader: other types are ignored; a known type that does
/// not decode, or comes in a schema version without an upcaster, throws and stops the consumer).
enum AuthAccountEvent: Sendable {
    case registered(UserRegistered)
    case roleGranted(RoleGranted)
    case roleRevoked(RoleRevoked)
    case profileUpdated(UserProfileUpdated)
    case suspended(UserSuspended)
    case reactivated(UserReactivated)
    case erased(UserErased)

    static func decode(_ event: PublishedEvent) throws -> AuthAccountEvent? {
        switch event.eventType {
        case UserRegistered.eventType: .registered(try payload(event))
        case RoleGranted.eventType: .roleGranted(try payload(event))
        case RoleRevoked.eventType: .roleRevoked(try payload(event))
        case UserProfileUpdated.eventType: .profileUpdated(try payload(event))
        case UserSuspended.eventType: .suspended(try payload(event))
        case UserReactivated.eventType: .reactivated(try payload(event))
        case UserErased.eventType: .erased(try payload(event))
        default: nil
        }
    }

    private static func payload<Payload: IntegrationEvent>(_ event: PublishedEvent) throws -> Payload {
        guard event.schemaVersion == Payload.schemaVersion else {
            throw EventDecodingError.unsupportedSchemaVersion(eventType: event.eventType, found: event.schemaVersion,
                                                              expected: Payload.schemaVersion)
        }
        do {
            return try event.decode(Payload.self)
        } catch {
            throw EventDecodingError.undecodablePayload(eventType: event.eventType, position: event.position, reason: "\(error)")
        }
    }

    var userId: UUID {
        switch self {
        case .registered(let e): e.userId
        case .roleGranted(let e): e.userId
        case .roleRevoked(let e): e.userId
        case .profileUpdated(let e): e.userId
        case .suspended(let e): e.userId
        case .reactivated(let e): e.userId
        case .erased(let e): e.userId
        }
    }
}

/// What an event does to the in-memory profile cache.
enum GuideCacheEffect: Sendable, Hashable {
    case none
    /// The public profile (name, or whether it may be shown) changed: fetch again next time.
    case invalidate
    /// The person was erased: drop everything held in memory.
    case forget
}

/// How each `waypoint.auth` event changes a `guide_accounts` row; both backends apply exactly this.
enum GuideAccountFold {
    /// The new row (nil: unchanged) and the cache effect.
    static func apply(_ event: AuthAccountEvent, to current: GuideAccount?) -> (row: GuideAccount?, cache: GuideCacheEffect) {
        if current?.status == .erased { return (nil, .none) }  // erasure is terminal
        func existing(_ at: Date) -> GuideAccount {
            current ?? GuideAccount(userId: event.userId, role: nil, status: .active, updatedAt: at)
        }
        switch event {
        case .registered(let e):
            var row = existing(e.registeredAt)
            row.role = e.role
            row.updatedAt = e.registeredAt
            return (row, .invalidate)
        case .roleGranted(let e):
            var row = existing(e.grantedAt)
            row.grantedRoles.insert(e.role)
            row.updatedAt = e.grantedAt
            return (row, .none)
        case .roleRevoked(let e):
            var row = existing(e.revokedAt)
            row.grantedRoles.remove(e.role)
            row.updatedAt = e.revokedAt
            return (row, .none)
        case .profileUpdated(let e):
            var row = existing(e.updatedAt)
            row.profileVersion += 1
            row.profileUpdatedAt = e.updatedAt
            row.updatedAt = e.updatedAt
            return (row, .invalidate)
        case .suspended(let e):
            var row = existing(e.suspendedAt)
            row.status = .suspended
            row.updatedAt = e.suspendedAt
            return (row, .invalidate)
        case .reactivated(let e):
            var row = existing(e.reactivatedAt)
            row.status = .active
            row.updatedAt = e.reactivatedAt
            return (row, .invalidate)
        case .erased(let e):
            return (GuideAccount(userId: e.userId, role: nil, status: .erased, updatedAt: e.erasedAt), .forget)
        }
    }
}

/// Reads of `guide_accounts` (the `waypoint.auth` consumer's table), on the store the configuration chose
/// (``TourManagementStores/guideAccounts``: ``SQLiteGuideAccountStore`` or ``PostgresGuideAccountStore``).
public struct GuideAccounts: Sendable {
    let store: any GuideAccountStore

    /// The reads of `store`.
    public init(store: any GuideAccountStore) {
        self.store = store
    }

    /// One account, or nil when `waypoint.auth` never mentioned it (or the consumer has not created its table yet).
    public func account(_ id: UUID) async throws -> GuideAccount? {
        try await accounts([id])[id]
    }

    /// The known accounts among `ids`.
    public func accounts(_ ids: [UUID]) async throws -> [UUID: GuideAccount] {
        let ids = Array(Set(ids))
        guard !ids.isEmpty else { return [:] }
        return try await store.accounts(ids)
    }

    /// Every row, by user id (operators, tests).
    public func all() async throws -> [GuideAccount] {
        try await store.all()
    }
}
