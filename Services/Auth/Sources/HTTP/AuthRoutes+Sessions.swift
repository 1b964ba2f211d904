import Foundation
import Hummingbird
import ServiceKit

/// The signed-in caller's sessions and password: `/v1/auth/logout`, `/v1/auth/sessions`, `/v1/auth/password`.
extension AuthRoutes {
    /// `POST /v1/auth/logout`: 204; the caller's session is revoked.
    @Sendable func logout(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        let (_, session) = try liveSession(context)
        try await commands.revoke(session, reason: .logout)
        return .noContent
    }

    /// `GET /v1/auth/sessions`: the caller's live sessions, the current one marked.
    @Sendable func listSessions(_ request: Request, context: ServiceRequestContext) async throws -> SessionListResponse {
        let (user, session) = try liveSession(context)
        let at = now()
        let sessions = directory.sessions(of: user).filter { $0.isLive(at: at) }.map {
            SessionResponse(id: $0.id.uuidString.lowercased(), deviceId: $0.deviceId, method: $0.method, startedAt: $0.startedAt,
                            lastRefreshedAt: $0.lastRefreshedAt, expiresAt: $0.expiresAt, current: $0.id == session)
        }
        return SessionListResponse(sessions: sessions)
    }

    /// `DELETE /v1/auth/sessions/{id}`: 204; 404 for a session that is not the caller's (or not a UUID).
    @Sendable func revokeSession(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        let (user, _) = try liveSession(context)
        let id = try context.parameters.require("id", as: UUID.self, ifInvalid: .notFound("no such session"))
        try await commands.revoke(id, ownedBy: user, reason: .revokedByUser)
        return .noContent
    }

    /// `POST /v1/auth/password`: 204; the caller's other sessions end.
    @Sendable func changePassword(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        let (user, session) = try liveSession(context)
        let body = try await request.decode(as: ChangePasswordRequest.self, context: context)
        try await commands.changePassword(userId: user, currentSessionId: session, current: body.currentPassword, new: body.newPassword)
        return .noContent
    }

    /// The caller's user and session ids, when that session is still live (a revoked session's access token is refused
    /// by auth itself at once; other services accept it until it expires, at most 15 minutes).
    func liveSession(_ context: ServiceRequestContext) throws -> (UUID, UUID) {
        let identity = try context.requireIdentity()
        guard let user = UUID(uuidString: identity.subject), let session = UUID(uuidString: identity.sessionId),
              let record = directory.session(session), record.userId == user, record.revocation == nil,
              directory.user(user)?.status == .active
        else { throw Problem.unauthorized("The session of this access token has ended.") }
        return (user, session)
    }
}
