import Hummingbird

/// Lets a request through only when its caller has one of the allowed roles (403 otherwise).
///
/// Place it after ``AuthenticationMiddleware``; without an identity it answers 401.
public struct RequireRole: RouterMiddleware {
    /// The request context of Waypoint services.
    public typealias Context = ServiceRequestContext

    /// Roles that may pass.
    public let allowed: Set<Role>

    /// Allows any of `roles`, e.g. `RequireRole(.guide, .admin)`.
    public init(_ roles: Role...) {
        self.allowed = Set(roles)
    }

    /// Allows any of `roles`.
    public init(_ roles: Set<Role>) {
        self.allowed = roles
    }

    /// Checks the caller's role and runs `next`.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        _ = try context.requireRole(in: allowed)
        return try await next(request, context)
    }
}
