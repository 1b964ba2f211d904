import AuthInfrastructure
import Contracts
import EventSourcing
import Foundation
import Logging
import Metrics
import ServiceKit

extension AuthCommands {
    // MARK: Refresh and revocation (the session stream)

    /// Rotates a refresh token. A token presented a second time revokes its whole session (reuse detection): two
    /// concurrent uses of one token race on the session's version, and the loser is, correctly, a reuse. Retry policy:
    /// three attempts, then 409.
    public func refresh(token presented: String, deviceId: String) async throws -> IssuedTokens {
        guard let token = SecretToken(presented: presented) else { throw AuthError.invalidRefreshToken }
        let rotation = try await onSession {
            try await sessions.execute(on: AuthEvents.sessionStream(token.owner), retries: 2) { loaded in
                try await rotate(token, deviceId: deviceId, loaded.state)
            }
        }
        switch rotation {
        case let .reused(revoked, userId):
            if revoked {
                Counter(label: "waypoint_auth_refresh_token_reuse_total").increment()
                try await directory.sync()
                logger.warning("refresh token reused; session revoked", metadata: ["session.id": "\(token.owner)", "user.id": "\(userId)"])
            }
            throw AuthError.refreshTokenReused
        case let .rotated(user, next, expiresAt):
            let access = try await issuer.issue(subject: user.id.uuidString.lowercased(), role: user.effectiveRole,
                                                sessionId: token.owner.uuidString.lowercased())
            return IssuedTokens(accessToken: access.token, accessTokenExpiresAt: access.expiresAt, refreshToken: next.encoded,
                                refreshTokenExpiresAt: expiresAt, sessionId: token.owner, user: user)
        }
    }

    /// What presenting a refresh token did.
    enum Rotation {
        /// An earlier token: the session is revoked (`revoked`: by this presentation).
        case reused(revoked: Bool, userId: UUID)
        /// The current token, replaced by `next`.
        case rotated(UserRecord, next: SecretToken, expiresAt: Date)
    }

    /// The events and answer of presenting `token` from `deviceId` to `session`: the session's rules decide; the bound
    /// device is opened to compare, and the user must be active.
    private func rotate(_ token: SecretToken, deviceId: String, _ session: SessionAggregate.State) async throws
        -> (events: [AuthEvent], answer: Rotation) {
        try await directory.sync()
        let at = now()
        switch SessionAggregate.presentation(of: token.hash, at: at, session) {
        case .invalid:
            throw AuthError.invalidRefreshToken
        case .reused:
            let events = try SessionAggregate.decide(.revoke(.refreshTokenReuse, at: at), session)
            return (events, .reused(revoked: !events.isEmpty, userId: session.userId ?? token.owner))
        case .current:
            break
        }
        guard let sealed = session.deviceId, let bound = try await personalData.open(sealed), ConstantTime.equals(deviceId, bound),
              let userId = session.userId, let user = directory.user(userId), user.status == .active
        else { throw AuthError.invalidRefreshToken }
        let next = SecretToken.generate(for: token.owner)
        let expiresAt = at.addingTimeInterval(settings.refreshTokenLifetime.timeInterval)
        let events = try SessionAggregate.decide(.rotate(presented: token.hash, next: next.hash, at: at, expiresAt: expiresAt), session)
        return (events, .rotated(user, next: next, expiresAt: expiresAt))
    }

    /// Revokes a session (idempotent: a revoked session stays revoked with its first reason). Retry policy: five
    /// attempts, then 409.
    public func revoke(_ sessionId: UUID, reason: SessionRevocationReason) async throws {
        let outcome = try await onSession {
            try await sessions.execute(.revoke(reason, at: now()), on: AuthEvents.sessionStream(sessionId), retries: 4)
        }
        if outcome.append != nil { try await directory.sync() }
    }

    /// Runs a session command; a concurrent change left after its retries is 409 `conflict`.
    func onSession<T>(_ command: () async throws -> T) async throws -> T {
        do {
            return try await command()
        } catch let error as EventStoreError where error.isConcurrentChange {
            throw AuthError.conflict("the session changed concurrently; retry")
        }
    }

    /// Revokes a session of `userId` (404 for anyone else's).
    public func revoke(_ sessionId: UUID, ownedBy userId: UUID, reason: SessionRevocationReason) async throws {
        try await directory.sync()
        guard let session = directory.session(sessionId), session.userId == userId else { throw AuthError.notFound("no such session") }
        try await revoke(sessionId, reason: reason)
    }

    /// Revokes every live session of a user, except `keeping`.
    func revokeAll(of userId: UUID, reason: SessionRevocationReason, keeping: UUID? = nil) async throws {
        try await directory.sync()
        for session in directory.sessions(of: userId) where session.revocation == nil && session.id != keeping {
            try await revoke(session.id, reason: reason)
        }
    }
}
