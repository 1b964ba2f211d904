import Contracts
import EventSourcing
import Foundation
import ServiceKit

/// One login session, the stream `session-<id>`, as refresh and revocation decide on it. The device id stays sealed
/// in the state; ``AuthCommands/refresh(token:deviceId:)`` opens it to compare.
enum SessionAggregate: Aggregate {
    struct State: Codable, Sendable, Hashable {
        /// `nil` until `SessionStarted`.
        var sessionId: UUID?
        var userId: UUID?
        /// When the current refresh token expires.
        var expiresAt: Date = .distantPast
        /// SHA-256 (hex) of the current refresh token.
        var currentTokenHash = ""
        /// Hashes of every earlier refresh token: presenting one is reuse.
        var previousTokenHashes: Set<String> = []
        var generation = 0
        /// The device the session is bound to, sealed for its user.
        var deviceId: SealedPersonalData?
        var revocation: SessionRevocationReason?

        /// Whether the session can still be refreshed at `now`.
        func isLive(at now: Date) -> Bool { revocation == nil && expiresAt > now }
    }

    enum Command: Sendable {
        /// End the session (a revoked session stays revoked with its first reason).
        case revoke(SessionRevocationReason, at: Date)
        /// Replace the current refresh token (hash `presented`) by the one with hash `next`, valid until `expiresAt`.
        case rotate(presented: String, next: String, at: Date, expiresAt: Date)
    }

    /// What a presented refresh token is to the session.
    enum Presentation: Sendable, Hashable {
        /// Not the session's current token, or the session expired or was revoked.
        case invalid
        /// An earlier token of the session, presented again.
        case reused
        /// The current token of a live session.
        case current
    }

    static let initialState = State()
    static var eventTypes: EventTypeMap<AuthEvent> { AuthEvents.typeMap }

    static func apply(_ state: State, _ event: AuthEvent) -> State {
        var state = state
        switch event {
        case .sessionStarted(let e):
            state.sessionId = e.sessionId
            state.userId = e.userId
            state.expiresAt = e.expiresAt
        case .refreshTokenIssued(let e):
            if !state.currentTokenHash.isEmpty { state.previousTokenHashes.insert(state.currentTokenHash) }
            state.currentTokenHash = e.tokenHash
            state.generation = e.generation
            if let device = e.deviceId { state.deviceId = device }
            state.expiresAt = e.expiresAt
        case .sessionRevoked(let e):
            state.revocation = e.reason
        default: break
        }
        return state
    }

    /// The token with hash `hash` presented at `now`.
    static func presentation(of hash: String, at now: Date, _ state: State) -> Presentation {
        guard state.sessionId != nil else { return .invalid }
        if state.previousTokenHashes.contains(hash) { return .reused }
        guard ConstantTime.equals(hash, state.currentTokenHash), state.isLive(at: now) else { return .invalid }
        return .current
    }

    /// Throws `notFound` for an unknown session; a rotation of anything but the current token is `invalidRefreshToken`.
    static func decide(_ command: Command, _ state: State) throws -> [AuthEvent] {
        guard let sessionId = state.sessionId, let userId = state.userId else { throw AuthError.notFound("no such session") }
        switch command {
        case let .revoke(reason, at):
            guard state.revocation == nil else { return [] }
            return [.sessionRevoked(SessionRevoked(sessionId: sessionId, userId: userId, reason: reason, revokedAt: at))]
        case let .rotate(presented, next, at, expiresAt):
            guard presentation(of: presented, at: at, state) == .current else { throw AuthError.invalidRefreshToken }
            return [.refreshTokenIssued(RefreshTokenIssued(sessionId: sessionId, userId: userId, tokenHash: next,
                                                           generation: state.generation + 1, deviceId: nil, issuedAt: at,
                                                           expiresAt: expiresAt))]
        }
    }

    static func payload(of event: AuthEvent) -> any EventPayload { event.payload }
}
