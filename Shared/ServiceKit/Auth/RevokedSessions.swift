import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether the session behind an access token (its `sid` claim) has been revoked: what ``AccessTokenVerifier`` asks after
/// every other check, so that logout and the other ends of a session reach every service, not only `auth`.
public protocol RevokedSessionLookup: Sendable {
    /// Whether the access tokens of `sessionId` (a lower-case UUID, the token's `sid`) must be refused.
    func isRevoked(sessionId: String) -> Bool
}

/// The sessions `auth` revoked, as a service learns them from `waypoint.auth` (`SessionRevoked`, fed by Messaging's
/// revoked-sessions consumer): every access token of such a session is refused (`401 invalid-token`) until it must have
/// expired anyway.
///
/// A revoked session never gets a new token, so each entry is needed only until the newest token of the session has
/// expired: ``retention`` after the revocation (access-token lifetime 15 minutes, plus the verifier's 60 s leeway, plus
/// 60 s for `exp`'s whole seconds). Both ends of that comparison come from auth's clock (`revokedAt`, `exp`), so clock
/// skew between auth and this service cancels out. Older entries are dropped as new ones arrive, so the registry holds
/// at most the revocations of the last ~17 minutes.
public final class RevokedSessions: RevokedSessionLookup {
    /// How long after its revocation a session's tokens are refused.
    public static let retention: Duration = .seconds(15 * 60 + 60 + 60)

    /// The current time; injectable for tests.
    public let now: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        var refuseUntil: [String: Date] = [:]
        var lastPruned = Date.distantPast
    }

    /// Creates an empty registry.
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Until when a session revoked at `revokedAt` is refused.
    public static func refuseUntil(revokedAt: Date) -> Date {
        revokedAt.addingTimeInterval(Double(retention.components.seconds))
    }

    /// Records that `sessionId` was revoked at `revokedAt` (auth's time). Returns until when its tokens are refused, or
    /// `nil` when every token of it has expired already (nothing to remember).
    @discardableResult
    public func revoke(sessionId: String, revokedAt: Date) -> Date? {
        let until = Self.refuseUntil(revokedAt: revokedAt)
        return insert(sessionId: sessionId, refuseUntil: until) ? until : nil
    }

    /// Records a revocation with its end already computed (a consumer reloading what it stored). Returns whether it is
    /// still in force.
    @discardableResult
    public func insert(sessionId: String, refuseUntil until: Date) -> Bool {
        let now = now()
        guard until > now else { return false }
        let key = sessionId.lowercased()
        state.withLock { state in
            state.refuseUntil[key] = max(state.refuseUntil[key] ?? until, until)
            if now.timeIntervalSince(state.lastPruned) > 60 {
                state.refuseUntil = state.refuseUntil.filter { $0.value > now }
                state.lastPruned = now
            }
        }
        return true
    }

    public func isRevoked(sessionId: String) -> Bool {
        let key = sessionId.lowercased()
        guard let until = state.withLock({ $0.refuseUntil[key] }) else { return false }
        return until > now()
    }

    /// How many revocations are remembered (expired ones may linger until the next prune).
    public var count: Int { state.withLock { $0.refuseUntil.count } }
}
