@testable import Auth
import Contracts
import EventSourcing
import Foundation
import Testing

/// Auth's aggregates as pure functions: decide and apply on folded state, without a store or a server.
@Suite("Auth aggregates: accounts, sessions and uniqueness claims decide without a store")
struct AuthAggregateTests {
    let userId = UUID.v4(), sessionId = UUID.v4()
    let at = Date(timeIntervalSince1970: 1_790_000_000)

    func fold<A: Aggregate>(_ aggregate: A.Type, _ events: [A.Event]) -> A.State {
        events.reduce(A.initialState, A.apply)
    }

    var registered: AccountAggregate.State {
        fold(AccountAggregate.self, [.userRegistered(UserRegistered(
            userId: userId, username: SealedPersonalData(subject: "s", sealed: "u"), email: SealedPersonalData(subject: "s", sealed: "e"),
            role: .traveller, licenceNumber: nil, method: .password, registeredAt: at))])
    }

    @Test("roles, suspension and reactivation change only what differs; an unknown or erased account is not found")
    func accountAdministration() throws {
        let state = registered
        let granted = try AccountAggregate.decide(.grant(.moderator, by: nil, at: at), state)
        #expect(granted.count == 1)
        let moderator = granted.reduce(state, AccountAggregate.apply)
        #expect(moderator.grantedRoles == [.moderator])
        #expect(try AccountAggregate.decide(.grant(.moderator, by: nil, at: at), moderator).isEmpty)
        #expect(try AccountAggregate.decide(.revokeRole(.admin, by: nil, at: at), moderator).isEmpty)
        #expect(try AccountAggregate.decide(.reactivate(by: nil, at: at), moderator).isEmpty)
        let suspended = try AccountAggregate.decide(.suspend(by: nil, at: at), moderator).reduce(moderator, AccountAggregate.apply)
        #expect(suspended.status == .suspended && suspended.isOpen)
        #expect(throws: AuthError.notFound("no such user")) { try AccountAggregate.decide(.suspend(by: nil, at: at), AccountAggregate.initialState) }
        let erased = AccountAggregate.apply(suspended, .userErased(UserErased(userId: userId, erasedAt: at)))
        #expect(throws: AuthError.notFound("no such user")) { try AccountAggregate.decide(.reactivate(by: nil, at: at), erased) }
    }

    @Test("failed logins count up to the threshold and lock; a lock that ran out starts a fresh count")
    func failedLogins() throws {
        var state = registered
        for expected in 1...3 {
            let events = try AccountAggregate.decide(.recordFailedLogin(at: at, threshold: 3, lockFor: 900), state)
            guard case .loginFailed(let failed)? = events.first else { Issue.record("no LoginFailed"); return }
            #expect(failed.consecutiveFailures == expected)
            #expect(failed.lockedUntil == (expected == 3 ? at.addingTimeInterval(900) : nil))
            state = events.reduce(state, AccountAggregate.apply)
        }
        let later = at.addingTimeInterval(901)
        guard case .loginFailed(let fresh)? = try AccountAggregate.decide(.recordFailedLogin(at: later, threshold: 3, lockFor: 900), state).first
        else { Issue.record("no LoginFailed"); return }
        #expect(fresh.consecutiveFailures == 1 && fresh.lockedUntil == nil)
        #expect(try AccountAggregate.decide(.recordFailedLogin(at: at, threshold: 3, lockFor: 900), AccountAggregate.initialState).isEmpty)
    }

    @Test("a profile patch merges: absent stays, null clears, a value sets (trimmed)")
    func profilePatch() throws {
        var patch = ProfilePatch()
        patch.displayName = .set("  Ada ")
        patch.language = .cleared
        let profile = patch.applied(to: Profile(displayName: "A", avatarUrl: "https://x.test/a.png", homeCurrency: CurrencyCode("EUR"), language: "de"))
        #expect(profile == Profile(displayName: "Ada", avatarUrl: "https://x.test/a.png", homeCurrency: CurrencyCode("EUR"), language: nil))
    }

    @Test("a session rotates its current token; an earlier token is reuse and revokes it once")
    func sessionRotation() throws {
        var session = fold(SessionAggregate.self, [
            .sessionStarted(SessionStarted(sessionId: sessionId, userId: userId, method: .password, startedAt: at, expiresAt: at.addingTimeInterval(3_600))),
            .refreshTokenIssued(RefreshTokenIssued(sessionId: sessionId, userId: userId, tokenHash: "h1", generation: 1,
                                                   deviceId: SealedPersonalData(subject: "s", sealed: "d"), issuedAt: at,
                                                   expiresAt: at.addingTimeInterval(3_600))),
        ])
        #expect(SessionAggregate.presentation(of: "h1", at: at, session) == .current)
        let rotated = try SessionAggregate.decide(.rotate(presented: "h1", next: "h2", at: at, expiresAt: at.addingTimeInterval(7_200)), session)
        session = rotated.reduce(session, SessionAggregate.apply)
        #expect(session.generation == 2 && session.currentTokenHash == "h2" && session.deviceId != nil)
        #expect(SessionAggregate.presentation(of: "h1", at: at, session) == .reused)
        #expect(SessionAggregate.presentation(of: "h2", at: at.addingTimeInterval(7_201), session) == .invalid)
        #expect(throws: AuthError.invalidRefreshToken) {
            try SessionAggregate.decide(.rotate(presented: "h1", next: "h3", at: at, expiresAt: at), session)
        }
        let revoked = try SessionAggregate.decide(.revoke(.refreshTokenReuse, at: at), session).reduce(session, SessionAggregate.apply)
        #expect(revoked.revocation == .refreshTokenReuse && !revoked.isLive(at: at))
        #expect(try SessionAggregate.decide(.revoke(.logout, at: at), revoked).isEmpty)
        #expect(throws: AuthError.notFound("no such session")) {
            try SessionAggregate.decide(.revoke(.logout, at: at), SessionAggregate.initialState)
        }
    }

    @Test("a claim is taken once; an orphaned claim (no account, over a minute old) is taken over; only the holder releases")
    func uniquenessClaims() {
        let other = UUID.v4()
        let claim = ReservationAggregate.decide(.claim(.email, for: userId, at: at, holderRegistered: false, orphanedAfter: 60),
                                                ReservationAggregate.initialState)
        let held = claim.reduce(ReservationAggregate.initialState, ReservationAggregate.apply)
        #expect(held.claimed && held.holder == userId)
        #expect(ReservationAggregate.decide(.claim(.email, for: other, at: at.addingTimeInterval(61), holderRegistered: true, orphanedAfter: 60), held).isEmpty)
        #expect(ReservationAggregate.decide(.claim(.email, for: other, at: at.addingTimeInterval(30), holderRegistered: false, orphanedAfter: 60), held).isEmpty)
        #expect(ReservationAggregate.decide(.claim(.email, for: other, at: at.addingTimeInterval(61), holderRegistered: false, orphanedAfter: 60), held).count == 1)
        #expect(ReservationAggregate.decide(.release(.email, by: other, at: at), held).isEmpty)
        let released = ReservationAggregate.decide(.release(.email, by: userId, at: at), held).reduce(held, ReservationAggregate.apply)
        #expect(!released.claimed)
        #expect(ReservationAggregate.decide(.claim(.email, for: other, at: at, holderRegistered: true, orphanedAfter: 60), released).count == 1)
    }
}
