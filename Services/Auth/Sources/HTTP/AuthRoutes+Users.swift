import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// Accounts: the caller's own (`/v1/users/me`), public profiles, the administrators' role and suspension routes, and
/// the published signing keys.
extension AuthRoutes {
    /// `GET /v1/users/me`.
    @Sendable func showAccount(_ request: Request, context: ServiceRequestContext) async throws -> AccountResponse {
        let (user, _) = try liveSession(context)
        guard let record = directory.user(user), record.status != .erased else { throw Problem.notFound("no such user") }
        return try AccountResponse(record)
    }

    /// `PATCH /v1/users/me`: the changed account.
    @Sendable func updateProfile(_ request: Request, context: ServiceRequestContext) async throws -> AccountResponse {
        let (user, _) = try liveSession(context)
        let patch = try await request.decode(as: ProfilePatch.self, context: context)
        return try AccountResponse(try await commands.updateProfile(userId: user, patch: patch))
    }

    /// `DELETE /v1/users/me`: 204; the account is erased.
    @Sendable func eraseAccount(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        let (user, _) = try liveSession(context)
        try await commands.erase(userId: user)
        return .noContent
    }

    /// `GET /v1/users/{id}`: an active account's public profile; 404 for anything else.
    @Sendable func showPublicProfile(_ request: Request, context: ServiceRequestContext) async throws -> PublicProfileResponse {
        let id = try context.parameters.require("id", as: UUID.self, ifInvalid: .notFound("no such user"))
        guard let user = directory.user(id), user.status == .active, let username = user.username
        else { throw Problem.notFound("no such user") }
        return PublicProfileResponse(id: id.uuidString.lowercased(), username: username, displayName: user.displayName,
                                     avatarUrl: user.avatarUrl, role: user.effectiveRole)
    }

    /// `PUT /v1/users/{id}/roles/{role}` (administrators).
    @Sendable func grantRole(_ request: Request, context: ServiceRequestContext) async throws -> AccountResponse {
        let (adminId, _) = try liveSession(context)
        let (target, role) = try adminTarget(context)
        return try AccountResponse(try await commands.grant(role, to: target, by: adminId))
    }

    /// `DELETE /v1/users/{id}/roles/{role}` (administrators).
    @Sendable func revokeRole(_ request: Request, context: ServiceRequestContext) async throws -> AccountResponse {
        let (adminId, _) = try liveSession(context)
        let (target, role) = try adminTarget(context)
        return try AccountResponse(try await commands.revokeRole(role, from: target, by: adminId))
    }

    /// `PUT /v1/users/{id}/suspension` (administrators; not themselves).
    @Sendable func suspend(_ request: Request, context: ServiceRequestContext) async throws -> AccountResponse {
        let (adminId, _) = try liveSession(context)
        let target = try userParameter(context)
        guard target != adminId else { throw Problem.conflict("administrators cannot suspend themselves", code: "self-suspension") }
        return try AccountResponse(try await commands.suspend(target, by: adminId))
    }

    /// `DELETE /v1/users/{id}/suspension` (administrators).
    @Sendable func reactivate(_ request: Request, context: ServiceRequestContext) async throws -> AccountResponse {
        let (adminId, _) = try liveSession(context)
        return try AccountResponse(try await commands.reactivate(try userParameter(context), by: adminId))
    }

    /// `GET /.well-known/jwks.json`: the public signing keys, cacheable for five minutes.
    @Sendable func publishedKeySet(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let keySet = await keyRing.publishedKeySet()
        var headers = HTTPFields()
        headers[.contentType] = "application/jwk-set+json"
        headers[.cacheControl] = "public, max-age=300"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: try ServiceJSON.makeEncoder().encode(keySet))))
    }

    /// The `id` path parameter; 404 when it is not a UUID.
    func userParameter(_ context: ServiceRequestContext) throws -> UUID {
        try context.parameters.require("id", as: UUID.self, ifInvalid: .notFound("no such user"))
    }

    /// The user and the grantable role named by the path; 422 `not-grantable` for any role but moderator.
    func adminTarget(_ context: ServiceRequestContext) throws -> (UUID, UserRole) {
        let id = try userParameter(context)
        guard let role = UserRole(rawValue: try context.parameters.require("role")), role == .moderator else {
            throw Problem.unprocessable(fieldErrors: [FieldError(field: "role", code: "not-grantable",
                                                                 message: "only moderator is granted through the API")])
        }
        return (id, role)
    }
}
