import AuthInfrastructure
import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// auth's HTTP API (see `openapi.yaml`): one named handler per operation, registered in ``addRoutes(to:)``.
///
/// Commands refuse with ``AuthError``, which renders itself as its problem; handlers convert nothing. Sign-up and
/// sign-in are here, the caller's sessions in `AuthRoutes+Sessions.swift`, accounts and administration in
/// `AuthRoutes+Users.swift`.
struct AuthRoutes: Sendable {
    let commands: AuthCommands
    let directory: AuthDirectory
    let keyRing: SigningKeyRing
    let sso: OIDCVerifier?
    let now: @Sendable () -> Date

    /// Mounts every route of auth on `routes`.
    func addRoutes(to routes: ServiceRoutes) {
        let auth = routes.group("/v1/auth")
        auth.post("register", use: register)
        auth.post("login", use: login)
        auth.post("refresh", use: refresh)
        auth.post("password-reset", use: requestPasswordReset)
        auth.post("password-reset/confirm", use: confirmPasswordReset)
        auth.post("sso/:provider", use: signInWithSSO)

        let signedIn = routes.authenticated("/v1/auth")
        signedIn.post("logout", use: logout)
        signedIn.get("sessions", use: listSessions)
        signedIn.delete("sessions/:id", use: revokeSession)
        signedIn.post("password", use: changePassword)

        let me = routes.authenticated("/v1/users/me")
        me.get(use: showAccount)
        me.patch(use: updateProfile)
        me.delete(use: eraseAccount)

        routes.group("/v1/users").get(":id", use: showPublicProfile)

        let admin = routes.authenticated("/v1/users", requiring: .admin)
        admin.put(":id/roles/:role", use: grantRole)
        admin.delete(":id/roles/:role", use: revokeRole)
        admin.put(":id/suspension", use: suspend)
        admin.delete(":id/suspension", use: reactivate)

        routes.group("/.well-known").get("jwks.json", use: publishedKeySet)
    }

    /// `POST /v1/auth/register`: 201 with the account and its `Location`.
    @Sendable func register(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<AccountResponse> {
        let body = try await request.decode(as: RegisterRequest.self, context: context)
        let user = try await commands.register(body)
        return EditedResponse(status: .created, headers: [.location: "/v1/users/\(user.id.uuidString.lowercased())"],
                              response: try AccountResponse(user))
    }

    /// `POST /v1/auth/login`: a new session's tokens.
    @Sendable func login(_ request: Request, context: ServiceRequestContext) async throws -> TokenResponse {
        let body = try await request.decode(as: LoginRequest.self, context: context)
        let tokens = try await commands.login(email: body.email, password: body.password, deviceId: body.deviceId)
        return TokenResponse(tokens, now: now())
    }

    /// `POST /v1/auth/refresh`: the session's next tokens (the refresh token rotates).
    @Sendable func refresh(_ request: Request, context: ServiceRequestContext) async throws -> TokenResponse {
        let body = try await request.decode(as: RefreshRequest.self, context: context)
        let tokens = try await commands.refresh(token: body.refreshToken, deviceId: body.deviceId)
        return TokenResponse(tokens, now: now())
    }

    /// `POST /v1/auth/password-reset`: 202, the same answer at once whether or not the account exists; the work
    /// happens after the response.
    @Sendable func requestPasswordReset(_ request: Request, context: ServiceRequestContext) async throws
        -> EditedResponse<AcceptedResponse> {
        let body = try await request.decode(as: PasswordResetRequest.self, context: context)
        let commands = commands
        Task { await commands.requestPasswordReset(email: body.email) }
        return EditedResponse(status: .accepted, response: AcceptedResponse(
            detail: "If an account uses this email, a reset link is on its way."))
    }

    /// `POST /v1/auth/password-reset/confirm`: 204 once the new password is set.
    @Sendable func confirmPasswordReset(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        let body = try await request.decode(as: PasswordResetConfirmation.self, context: context)
        try await commands.confirmPasswordReset(token: body.token, newPassword: body.newPassword)
        return .noContent
    }

    /// `POST /v1/auth/sso/{provider}`: signs in (201 when it created the account) with a configured provider's ID token.
    @Sendable func signInWithSSO(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<TokenResponse> {
        let name = try context.parameters.require("provider")
        guard let provider = AuthenticationMethod(rawValue: name), provider != .password, let sso,
              sso.providers[name] != nil
        else { throw Problem.notFound("unknown or unconfigured identity provider \(name)", code: "unknown-provider") }
        let body = try await request.decode(as: SSORequest.self, context: context)
        let identity = try await Self.verify(body.idToken, provider: name, with: sso)
        let (tokens, created) = try await commands.signIn(with: identity, provider: provider, role: body.role, deviceId: body.deviceId)
        return EditedResponse(status: created ? .created : .ok, response: TokenResponse(tokens, now: now(), created: created))
    }

    /// The identity an ID token proves: 503 while the provider's keys cannot be fetched, 401 `invalid-id-token` otherwise.
    static func verify(_ idToken: String, provider: String, with sso: OIDCVerifier) async throws -> OIDCIdentity {
        do {
            return try await sso.verify(idToken: idToken, provider: provider)
        } catch OIDCError.keysUnavailable {
            throw Problem.serviceUnavailable("The identity provider's signing keys cannot be fetched; retry later.",
                                             code: "identity-provider-unavailable", retryAfter: .seconds(5))
        } catch let error as OIDCError {
            throw Problem(status: .unauthorized, code: "invalid-id-token", title: "Invalid ID token",
                          detail: "The ID token was rejected: \(error).")
        }
    }
}
