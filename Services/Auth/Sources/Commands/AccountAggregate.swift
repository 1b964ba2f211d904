import Contracts
import EventSourcing
import Foundation

/// One account, the stream `user-<id>`, as commands decide on it: status, granted roles, the failed-login count and the
/// profile. Personal fields stay sealed in the state; a command that compares them opens them first
/// (``AuthCommands/updateProfile(userId:patch:)``). The answers of the read endpoints come from ``AuthDirectory``.
enum AccountAggregate: Aggregate {
    struct State: Codable, Sendable, Hashable {
        /// `nil` until `UserRegistered`.
        var userId: UUID?
        var status: AccountStatus = .active
        var grantedRoles: Set<UserRole> = []
        var consecutiveFailures = 0
        var lockedUntil: Date?
        var displayName: SealedPersonalData?
        var avatarUrl: SealedPersonalData?
        var homeCurrency: CurrencyCode?
        var language: String?

        /// Whether the account exists and is not erased: what every account command needs.
        var isOpen: Bool { userId != nil && status != .erased }
    }

    enum Command: Sendable {
        case grant(UserRole, by: UUID?, at: Date)
        case revokeRole(UserRole, by: UUID?, at: Date)
        case suspend(by: UUID?, at: Date)
        case reactivate(by: UUID?, at: Date)
        /// A wrong password at `at`: `threshold` consecutive failures lock the account for `lockFor`.
        case recordFailedLogin(at: Date, threshold: Int, lockFor: TimeInterval)
        /// The whole new profile, sealed (``AuthCommands/updateProfile(userId:patch:)`` decided that it changes).
        case updateProfile(UserProfileUpdated)
    }

    static let initialState = State()
    static var eventTypes: EventTypeMap<AuthEvent> { AuthEvents.typeMap }

    static func apply(_ state: State, _ event: AuthEvent) -> State {
        var state = state
        switch event {
        case .userRegistered(let e): state.userId = e.userId
        case .profileUpdated(let e):
            state.displayName = e.displayName
            state.avatarUrl = e.avatarUrl
            state.homeCurrency = e.homeCurrency
            state.language = e.language
        case .roleGranted(let e): state.grantedRoles.insert(e.role)
        case .roleRevoked(let e): state.grantedRoles.remove(e.role)
        case .userSuspended: state.status = .suspended
        case .userReactivated: state.status = .active
        case .userErased:
            state.status = .erased
            state.displayName = nil
            state.avatarUrl = nil
        case .passwordChanged, .loginSucceeded:
            state.consecutiveFailures = 0
            state.lockedUntil = nil
        case .loginFailed(let e):
            state.consecutiveFailures = e.consecutiveFailures
            if let until = e.lockedUntil { state.lockedUntil = until }
        default: break
        }
        return state
    }

    /// Throws `notFound` for an unknown or erased account, except for a failed login (which records nothing then).
    static func decide(_ command: Command, _ state: State) throws -> [AuthEvent] {
        if case .recordFailedLogin(let at, let threshold, let lockFor) = command {
            return failedLogin(at: at, threshold: threshold, lockFor: lockFor, state)
        }
        guard state.isOpen, let userId = state.userId else { throw AuthError.notFound("no such user") }
        switch command {
        case let .grant(role, admin, at):
            return state.grantedRoles.contains(role) ? [] : [.roleGranted(RoleGranted(userId: userId, role: role, grantedBy: admin, grantedAt: at))]
        case let .revokeRole(role, admin, at):
            return state.grantedRoles.contains(role) ? [.roleRevoked(RoleRevoked(userId: userId, role: role, revokedBy: admin, revokedAt: at))] : []
        case let .suspend(admin, at):
            return state.status == .active ? [.userSuspended(UserSuspended(userId: userId, suspendedBy: admin, suspendedAt: at))] : []
        case let .reactivate(admin, at):
            return state.status == .suspended ? [.userReactivated(UserReactivated(userId: userId, reactivatedBy: admin, reactivatedAt: at))] : []
        case .updateProfile(let updated):
            return [.profileUpdated(updated)]
        case .recordFailedLogin:
            return []
        }
    }

    /// One more consecutive failure — a lock that has run out starts a fresh count — locking at `threshold`.
    static func failedLogin(at: Date, threshold: Int, lockFor: TimeInterval, _ state: State) -> [AuthEvent] {
        guard let userId = state.userId else { return [] }
        let previous = state.lockedUntil.map { $0 <= at } ?? false ? 0 : state.consecutiveFailures
        let failures = previous + 1
        let lockedUntil = failures >= threshold ? at.addingTimeInterval(lockFor) : nil
        return [.loginFailed(LoginFailed(userId: userId, failedAt: at, consecutiveFailures: failures, lockedUntil: lockedUntil))]
    }

    static func payload(of event: AuthEvent) -> any EventPayload { event.payload }
}

/// The profile fields a user edits, opened.
struct Profile: Sendable, Hashable {
    var displayName: String?
    var avatarUrl: String?
    var homeCurrency: CurrencyCode?
    var language: String?
}

extension ProfilePatch {
    /// `profile` with this patch applied (merge-patch: absent stays, `null` clears, a value sets, trimmed).
    func applied(to profile: Profile) -> Profile {
        func merged(_ field: Field<String>, _ current: String?) -> String? {
            switch field {
            case .unchanged: current
            case .cleared: nil
            case .set(let value): value.trimmingCharacters(in: .whitespaces)
            }
        }
        return Profile(displayName: merged(displayName, profile.displayName), avatarUrl: merged(avatarUrl, profile.avatarUrl),
                       homeCurrency: merged(homeCurrency, profile.homeCurrency?.code).flatMap { CurrencyCode($0) },
                       language: merged(language, profile.language))
    }
}
