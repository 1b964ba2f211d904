import EventSourcing
import Foundation

/// One uniqueness claim, the stream `reservation-<kind>-<hash>` (``ReservationStream``): who holds a username or an
/// email. Registrations claim both before the user's first events, so two concurrent ones cannot both get a value.
enum ReservationAggregate: Aggregate {
    struct State: Codable, Sendable, Hashable {
        /// The account that claimed (or last released) the value.
        var holder: UUID?
        var claimed = false
        /// When it was claimed or released.
        var since: Date?
    }

    enum Command: Sendable {
        /// Claim the value for `userId`. A claim held by `holderRegistered == false` (its registration crashed before the
        /// user existed) for longer than `orphanedAfter` is taken over.
        case claim(ReservationKind, for: UUID, at: Date, holderRegistered: Bool, orphanedAfter: TimeInterval)
        /// Give the value back, if `userId` holds it.
        case release(ReservationKind, by: UUID, at: Date)
    }

    static let initialState = State()
    static var eventTypes: EventTypeMap<AuthEvent> { AuthEvents.typeMap }

    static func apply(_ state: State, _ event: AuthEvent) -> State {
        switch event {
        case .reservationClaimed(let e): State(holder: e.userId, claimed: true, since: e.claimedAt)
        case .reservationReleased(let e): State(holder: e.userId, claimed: false, since: e.releasedAt)
        default: state
        }
    }

    /// No events when another live account holds the value (claim) or `userId` does not hold it (release).
    static func decide(_ command: Command, _ state: State) -> [AuthEvent] {
        switch command {
        case let .claim(kind, userId, at, holderRegistered, orphanedAfter):
            if state.claimed {
                let orphaned = !holderRegistered && at.timeIntervalSince(state.since ?? at) > orphanedAfter
                guard orphaned else { return [] }
            }
            return [.reservationClaimed(ReservationClaimed(kind: kind, userId: userId, claimedAt: at))]
        case let .release(kind, userId, at):
            guard state.claimed, state.holder == userId else { return [] }
            return [.reservationReleased(ReservationReleased(kind: kind, userId: userId, releasedAt: at))]
        }
    }

    static func payload(of event: AuthEvent) -> any EventPayload { event.payload }
}
