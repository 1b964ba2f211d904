import Hummingbird
import Logging

/// What a service's route builder receives: the router (middlewares and operational routes already
/// installed) and ready-made groups for each kind of access.
///
/// ```swift
/// try ServiceApplication(configuration: configuration, …) { routes in
///     TourCatalogueController(repository: repository).addRoutes(to: routes.group("/v1/tours"))
///     TourAuthoringController(repository: repository).addRoutes(to: routes.authenticated("/v1/guide/tours", requiring: .guide))
///     EventFeedController(store: store).addRoutes(to: routes.internalGroup("/events"))
/// }
/// ```
public struct ServiceRoutes {
    /// The router, for anything the groups below do not cover.
    public let router: Router<ServiceRequestContext>
    /// The access-token verifier the authenticated groups use.
    public let verifier: AccessTokenVerifier
    /// The service's configuration.
    public let configuration: ServiceConfiguration
    /// The readiness registry behind `/health/ready`.
    public let readiness: Readiness
    /// The service's metrics.
    public let metrics: ServiceMetrics
    /// The service's logger.
    public let logger: Logger

    /// Public routes under `path`: no token needed.
    public func group(_ path: RouterPath = "") -> RouterGroup<ServiceRequestContext> {
        router.group(path)
    }

    /// Routes under `path` that need a valid access token (401) and, when `roles` are given, one of
    /// those roles (403).
    public func authenticated(_ path: RouterPath = "", requiring roles: Role...) -> RouterGroup<ServiceRequestContext> {
        let group = router.group(path).add(middleware: AuthenticationMiddleware(verifier: verifier, requirement: .required))
        return roles.isEmpty ? group : group.add(middleware: RequireRole(Set(roles)))
    }

    /// Routes under `path` open to everyone that also know the caller when a valid token is sent
    /// (an invalid token is still 401).
    public func optionallyAuthenticated(_ path: RouterPath = "") -> RouterGroup<ServiceRequestContext> {
        router.group(path).add(middleware: AuthenticationMiddleware(verifier: verifier, requirement: .optional))
    }

    /// Service-to-service routes under `/v1/internal` + `path`, guarded by the internal token.
    public func internalGroup(_ path: RouterPath = "") -> RouterGroup<ServiceRequestContext> {
        router.group(RouterPath(InternalTokenMiddleware.pathPrefix)).group(path)
    }
}
