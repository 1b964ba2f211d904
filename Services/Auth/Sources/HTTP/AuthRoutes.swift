import AuthInfrastructure
import Contracts
import Foundation
import Hummingbird
import ServiceKit

struct LoginRequest: Decodable, Sendable, ValidatableRequest {
    var email: String
    var password: String
    var deviceId: String

    func validate(into validator: inout Validator) {
        validator.length(email, field: "email", min: 1, max: 254)
        validator.length(password, field: "password", min: 1, max: 1_024)
        PasswordRules.validateCharacters(password, field: "password", into: &validator)
        DeviceRules.validate(deviceId, into: &validator)
    }
}

struct RefreshRequest: Decodable, Sendable, ValidatableRequest {
    var refreshToken: String
    /// Must be the device the session was started on: a refresh token is bound to it.
    var deviceId: String

    func validate(into validator: inout Validator) {
        validator.length(refreshToken, field: "refreshToken", min: 1, max: 512)
        DeviceRules.validate(deviceId, into: &validator)
    }
}

struct PasswordResetRequest: Decodable, Sendable, ValidatableRequest {
    var email: String

    func validate(into validator: inout Validator) {
        validator.length(email, field: "email", min: 1, max: 254)
    }
}

struct PasswordResetConfirmation: Decodable, Sendable, ValidatableRequest {
    var token: String
    var newPassword: String

    func validate(into validator: inout Validator) {
        validator.length(token, field: "token", min: 1, max: 512)
        validator.length(newPassword, field: "newPassword", min: 1, max: 1_024)
        PasswordRules.validateCharacters(newPassword, field: "newPassword", into: &validator)
    }
}

struct ChangePasswordRequest: Decodable, Sendable, ValidatableRequest {
    var currentPassword: String
    var newPassword: String

    func validate(into validator: inout Validator) {
        validator.length(currentPassword, field: "currentPassword", min: 1, max: 1_024)
        validator.length(newPassword, field: "newPassword", min: 1, max: 1_024)
        PasswordRules.validateCharacters(currentPassword, field: "currentPassword", into: &validator)
        PasswordRules.validateCharacters(newPassword, field: "newPassword", into: &validator)
    }
}

struct SSORequest: Decodable, Sendable, ValidatableRequest {
    var idToken: String
    var deviceId: String
    var role: UserRole?

    func validate(into validator: inout Validator) {
        validator.length(idToken, field: "idToken", min: 1, max: 16_384)
        DeviceRules.validate(deviceId, into: &validator)
    }
}

enum DeviceRules {
    static func validate(_ deviceId: String, into validator: inout Validator) {
        validator.length(deviceId, field: "deviceId", min: 1, max: 200)
        validator.require(!deviceId.contains(where: { $0.isNewline || $0.unicodeScalars.contains { $0.value < 0x20 } }),
                          field: "deviceId", code: "invalid-characters", message: "must be printable text")
    }
}

/// auth's HTTP API (see `openapi.yaml`).
struct AuthRoutes: Sendable {
    let commands: AuthCommands
    let directory: AuthDirectory
    let keyRing: SigningKeyRing
    let sso: OIDCVerifier?
    let now: @Sendable () -> Date

    func add(to routes: ServiceRoutes) {
        let auth = routes.group("/v1/auth")
        auth.post("register") { request, context -> EditedResponse<AccountResponse> in
            let body = try await request.decode(as: RegisterRequest.self, context: context)
            let user = try await mapped { try await commands.register(body) }
            return EditedResponse(status: .created, headers: [.location: "/v1/users/\(user.id.uuidString.lowercased())"],
                                  response: try AccountResponse(user))
        }
        auth.post("login") { request, context -> TokenResponse in
            let body = try await request.decode(as: LoginRequest.self, context: context)
            let tokens = try await mapped { try await commands.login(email: body.email, password: body.password, deviceId: body.deviceId) }
            return TokenResponse(tokens, now: now())
        }
        auth.post("refresh") { request, context -> TokenResponse in
            let body = try await request.decode(as: RefreshRequest.self, context: context)
            let tokens = try await mapped { try await commands.refresh(token: body.refreshToken, deviceId: body.deviceId) }
            return TokenResponse(tokens, now: now())
        }
        auth.post("password-reset") { request, context -> EditedResponse<AcceptedResponse> in
            let body = try await request.decode(as: PasswordResetRequest.self, context: context)
            // The same answer, at once, whether or not the account exists; the work happens after the response.
            let commands = commands
            Task { await commands.requestPasswordReset(email: body.email) }
            return EditedResponse(status: .accepted, response: AcceptedResponse(
                detail: "If an account uses this email, a reset link is on its way."))
        }
        auth.post("password-reset/confirm") { request, context -> HTTPResponse.Status in
            let body = try await request.decode(as: PasswordResetConfirmation.self, context: context)
            try await mapped { try await commands.confirmPasswordReset(token: body.token, newPassword: body.newPassword) }
            return .noContent
        }
        auth.post("sso/:provider") { request, context -> EditedResponse<TokenResponse> in
            let name = try context.parameters.require("provider")
            guard let provider = AuthenticationMethod(rawValue: name), provider != .password, let sso,
                  sso.providers[name] != nil
            else { throw Problem.notFound("unknown or unconfigured identity provider \(name)", code: "unknown-provider") }
            let body = try await request.decode(as: SSORequest.self, context: context)
            let identity: OIDCIdentity
            do {
                identity = try await sso.verify(idToken: body.idToken, provider: name)
            } catch OIDCError.keysUnavailable {
                throw Problem.serviceUnavailable("The identity provider's signing keys cannot be fetched; retry later.",
                                                 code: "identity-provider-unavailable", retryAfter: .seconds(5))
            } catch let error as OIDCError {
                throw Problem(status: .unauthorized, code: "invalid-id-token", title: "Invalid ID token",
                              detail: "The ID token was rejected: \(error).")
            }
            let (tokens, created) = try await mapped {
                try await commands.signIn(with: identity, provider: provider, role: body.role, deviceId: body.deviceId)
            }
            return EditedResponse(status: created ? .created : .ok, response: TokenResponse(tokens, now: now(), created: created))
        }

        let signedIn = routes.authenticated("/v1/auth")
        signedIn.post("logout") { _, context -> HTTPResponse.Status in
            let (_, session) = try liveSession(context)
            try await mapped { try await commands.revoke(session, reason: .logout) }
            return .noContent
        }
        signedIn.get("sessions") { _, context -> SessionListResponse in
            let (user, session) = try liveSession(context)
            let at = now()
            let sessions = directory.sessions(of: user).filter { $0.isLive(at: at) }.map {
                SessionResponse(id: $0.id.uuidString.lowercased(), deviceId: $0.deviceId, method: $0.method, startedAt: $0.startedAt,
                                lastRefreshedAt: $0.lastRefreshedAt, expiresAt: $0.expiresAt, current: $0.id == session)
            }
            return SessionListResponse(sessions: sessions)
        }
        signedIn.delete("sessions/:id") { _, context -> HTTPResponse.Status in
            let (user, _) = try liveSession(context)
            guard let id = UUID(uuidString: try context.parameters.require("id")) else { throw Problem.notFound("no such session") }
            try await mapped { try await commands.revoke(id, ownedBy: user, reason: .revokedByUser) }
            return .noContent
        }
        signedIn.post("password") { request, context -> HTTPResponse.Status in
            let (user, session) = try liveSession(context)
            let body = try await request.decode(as: ChangePasswordRequest.self, context: context)
            try await mapped {
                try await commands.changePassword(userId: user, currentSessionId: session, current: body.currentPassword, new: body.newPassword)
            }
            return .noContent
        }

        let me = routes.authenticated("/v1/users/me")
        me.get { _, context -> AccountResponse in
            let (user, _) = try liveSession(context)
            guard let record = directory.user(user), record.status != .erased else { throw Problem.notFound("no such user") }
            return try AccountResponse(record)
        }
        me.patch { request, context -> AccountResponse in
            let (user, _) = try liveSession(context)
            let patch = try await request.decode(as: ProfilePatch.self, context: context)
            return try AccountResponse(try await mapped { try await commands.updateProfile(userId: user, patch: patch) })
        }
        me.delete { _, context -> HTTPResponse.Status in
            let (user, _) = try liveSession(context)
            try await mapped { try await commands.erase(userId: user) }
            return .noContent
        }

        routes.group("/v1/users").get(":id") { _, context -> PublicProfileResponse in
            guard let id = UUID(uuidString: try context.parameters.require("id")), let user = directory.user(id),
                  user.status == .active, let username = user.username
            else { throw Problem.notFound("no such user") }
            return PublicProfileResponse(id: id.uuidString.lowercased(), username: username, displayName: user.displayName,
                                         avatarUrl: user.avatarUrl, role: user.effectiveRole)
        }

        let admin = routes.authenticated("/v1/users", requiring: .admin)
        admin.put(":id/roles/:role") { _, context -> AccountResponse in
            let (adminId, _) = try liveSession(context)
            let (target, role) = try adminTarget(context)
            return try AccountResponse(try await mapped { try await commands.grant(role, to: target, by: adminId) })
        }
        admin.delete(":id/roles/:role") { _, context -> AccountResponse in
            let (adminId, _) = try liveSession(context)
            let (target, role) = try adminTarget(context)
            return try AccountResponse(try await mapped { try await commands.revokeRole(role, from: target, by: adminId) })
        }
        admin.put(":id/suspension") { _, context -> AccountResponse in
            let (adminId, _) = try liveSession(context)
            let target = try userParameter(context)
            guard target != adminId else { throw Problem.conflict("administrators cannot suspend themselves", code: "self-suspension") }
            return try AccountResponse(try await mapped { try await commands.suspend(target, by: adminId) })
        }
        admin.delete(":id/suspension") { _, context -> AccountResponse in
            let (adminId, _) = try liveSession(context)
            return try AccountResponse(try await mapped { try await commands.reactivate(try userParameter(context), by: adminId) })
        }

        routes.group("/.well-known").get("jwks.json") { _, _ -> Response in
            let keySet = await keyRing.publishedKeySet()
            var headers = HTTPFields()
            headers[.contentType] = "application/jwk-set+json"
            headers[.cacheControl] = "public, max-age=300"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: try ServiceJSON.makeEncoder().encode(keySet))))
        }
    }

    /// The caller's user and session ids, when that session is still live (a revoked session's access token is refused
    /// by auth itself at once; other services accept it until it expires, at most 15 minutes).
    private func liveSession(_ context: ServiceRequestContext) throws -> (UUID, UUID) {
        let identity = try context.requireIdentity()
        guard let user = UUID(uuidString: identity.subject), let session = UUID(uuidString: identity.sessionId),
              let record = directory.session(session), record.userId == user, record.revocation == nil,
              directory.user(user)?.status == .active
        else { throw Problem.unauthorized("The session of this access token has ended.") }
        return (user, session)
    }

    private func userParameter(_ context: ServiceRequestContext) throws -> UUID {
        guard let id = UUID(uuidString: try context.parameters.require("id")) else { throw Problem.notFound("no such user") }
        return id
    }

    private func adminTarget(_ context: ServiceRequestContext) throws -> (UUID, UserRole) {
        let id = try userParameter(context)
        guard let role = UserRole(rawValue: try context.parameters.require("role")), role == .moderator else {
            throw Problem.unprocessable(fieldErrors: [FieldError(field: "role", code: "not-grantable",
                                                                 message: "only moderator is granted through the API")])
        }
        return (id, role)
    }
}

/// Runs a command, turning its domain refusals into problems.
func mapped<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as AuthError {
        throw error.problem
    }
}
