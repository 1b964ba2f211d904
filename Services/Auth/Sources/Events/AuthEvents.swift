import Contracts
import EventSourcing
import Foundation

extension UserRegistered: EventPayload {}
extension UserProfileUpdated: EventPayload {}
extension RoleGranted: EventPayload {}
extension RoleRevoked: EventPayload {}
extension UserSuspended: EventPayload {}
extension UserReactivated: EventPayload {}
extension UserErased: EventPayload {}
extension PasswordChanged: EventPayload {}
extension SessionStarted: EventPayload {}
extension SessionRevoked: EventPayload {}

/// Every event in auth's log.
enum AuthEvent: Sendable {
    case userRegistered(UserRegistered)
    case profileUpdated(UserProfileUpdated)
    case roleGranted(RoleGranted)
    case roleRevoked(RoleRevoked)
    case userSuspended(UserSuspended)
    case userReactivated(UserReactivated)
    case userErased(UserErased)
    case passwordChanged(PasswordChanged)
    case sessionStarted(SessionStarted)
    case sessionRevoked(SessionRevoked)
    case passwordHashSet(PasswordHashSet)
    case loginFailed(LoginFailed)
    case loginSucceeded(LoginSucceeded)
    case passwordResetRequested(PasswordResetRequested)
    case externalIdentityLinked(ExternalIdentityLinked)
    case refreshTokenIssued(RefreshTokenIssued)
    case reservationClaimed(ReservationClaimed)
    case reservationReleased(ReservationReleased)
}

enum AuthEvents {
    /// How stored events decode (unknown types are ignored, undecodable known ones throw).
    static let typeMap = EventTypeMap<AuthEvent>()
        .registering(UserRegistered.self, AuthEvent.userRegistered)
        .registering(UserProfileUpdated.self, AuthEvent.profileUpdated)
        .registering(RoleGranted.self, AuthEvent.roleGranted)
        .registering(RoleRevoked.self, AuthEvent.roleRevoked)
        .registering(UserSuspended.self, AuthEvent.userSuspended)
        .registering(UserReactivated.self, AuthEvent.userReactivated)
        .registering(UserErased.self, AuthEvent.userErased)
        .registering(PasswordChanged.self, AuthEvent.passwordChanged)
        .registering(SessionStarted.self, AuthEvent.sessionStarted)
        .registering(SessionRevoked.self, AuthEvent.sessionRevoked)
        .registering(PasswordHashSet.self, AuthEvent.passwordHashSet)
        .registering(LoginFailed.self, AuthEvent.loginFailed)
        .registering(LoginSucceeded.self, AuthEvent.loginSucceeded)
        .registering(PasswordResetRequested.self, AuthEvent.passwordResetRequested)
        .registering(ExternalIdentityLinked.self, AuthEvent.externalIdentityLinked)
        .registering(RefreshTokenIssued.self, AuthEvent.refreshTokenIssued)
        .registering(ReservationClaimed.self, AuthEvent.reservationClaimed)
        .registering(ReservationReleased.self, AuthEvent.reservationReleased)

    /// The published language of `waypoint.auth`: only these leave the service (relay and embedded feed).
    static let publishedTypes: Set<String> = [
        UserRegistered.eventType, UserProfileUpdated.eventType, RoleGranted.eventType, RoleRevoked.eventType,
        UserSuspended.eventType, UserReactivated.eventType, UserErased.eventType, PasswordChanged.eventType,
        SessionStarted.eventType, SessionRevoked.eventType,
    ]

    /// Whether an event of auth's log is published.
    static func isPublished(_ envelope: EventEnvelope) -> Bool {
        publishedTypes.contains(envelope.eventType)
    }

    static func userStream(_ id: UUID) -> String { "user-\(id.uuidString.lowercased())" }
    static func sessionStream(_ id: UUID) -> String { "session-\(id.uuidString.lowercased())" }
}
