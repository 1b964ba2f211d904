import Contracts
import EventSourcing

extension AuthEvent {
    /// The stored payload of the event: what auth's aggregates append.
    var payload: any EventPayload {
        switch self {
        case .userRegistered(let e): e
        case .profileUpdated(let e): e
        case .roleGranted(let e): e
        case .roleRevoked(let e): e
        case .userSuspended(let e): e
        case .userReactivated(let e): e
        case .userErased(let e): e
        case .passwordChanged(let e): e
        case .sessionStarted(let e): e
        case .sessionRevoked(let e): e
        case .passwordHashSet(let e): e
        case .loginFailed(let e): e
        case .loginSucceeded(let e): e
        case .passwordResetRequested(let e): e
        case .externalIdentityLinked(let e): e
        case .refreshTokenIssued(let e): e
        case .reservationClaimed(let e): e
        case .reservationReleased(let e): e
        }
    }
}
