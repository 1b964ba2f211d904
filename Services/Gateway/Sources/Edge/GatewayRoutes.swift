import Hummingbird
import ServiceKit

/// What an extension of the gateway receives to mount routes the gateway serves itself, such as the push stream
/// `GET /v1/notifications/stream`: the router (edge middlewares installed) and groups that verify the caller.
///
/// ```swift
/// let app = try buildGateway(configuration: configuration) { routes in
///     routes.authenticated("/v1/notifications").get("/stream") { request, context in
///         let user = try context.requireIdentity()      // the verified caller (`sub`, role, session)
///         …
///     }
/// }
/// ```
public struct GatewayRoutes {
    /// The router; its middlewares (tracing, access log, CORS, problems, the proxy) are already installed.
    public let router: Router<ServiceRequestContext>
    /// The access-token verifier of the edge (auth's JWKS).
    public let verifier: AccessTokenVerifier
    /// The edge's rate limits.
    public let rateLimits: EdgeRateLimits
    /// The gateway's readiness registry (register checks of the extension here).
    public let readiness: Readiness
    /// The gateway's metrics.
    public let metrics: ServiceMetrics

    /// Routes under `path` that need a valid access token (401 otherwise) and count against the caller's rate limit;
    /// handlers read the caller with `context.requireIdentity()`.
    public func authenticated(_ path: RouterPath) -> RouterGroup<ServiceRequestContext> {
        router.group(path)
            .add(middleware: AuthenticationMiddleware(verifier: verifier, requirement: .required))
            .add(middleware: RateLimitMiddleware(limits: rateLimits))
    }
}
