import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceKit
import ServiceLifecycle

/// Builds the gateway.
///
/// - Parameters:
///   - configuration: Everything read from the environment.
///   - metrics: ``ServiceMetrics/shared`` in production, a fresh instance in tests.
///   - keySource: Access-token keys; `nil` fetches the configured JWKS URL (auth's) with ServiceKit's ``JWKSProvider``.
///   - revokedSessions: Sessions whose access tokens the edge refuses (Messaging's ``RevokedSessionsFollower`` of
///     `waypoint.auth`); `nil` checks none.
///   - readiness: The registry of the gateway's own checks.
///   - routeTable: Which service owns which path; Waypoint's by default.
///   - logger: The application logger; defaults to one labelled `gateway`.
///   - background: Long-running work the gateway hosts (e.g. the push stream's consumer of `waypoint.notifications`):
///     started with the gateway, stopped after HTTP has drained, before the upstream clients close.
///   - onServerRunning: Called once the server listens (tests read the port here).
///   - extensions: Mounts routes the gateway serves itself, e.g. the push stream (see ``GatewayRoutes``).
public func buildGateway(
    configuration: GatewayConfiguration,
    metrics: ServiceMetrics = .shared,
    keySource: (any AccessTokenKeySource)? = nil,
    revokedSessions: (any RevokedSessionLookup)? = nil,
    readiness: Readiness = Readiness(),
    routeTable: RouteTable = .waypoint,
    logger: Logger? = nil,
    background: [any Service] = [],
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
    extensions: (GatewayRoutes) throws -> Void = { _ in }
) throws -> GatewayApplication {
    let logger = logger ?? ServiceLogging.makeLogger(configuration.service)
    let verifier = AccessTokenVerifier(
        keys: keySource ?? JWKSProvider(url: configuration.service.jwksURL, logger: logger),
        issuer: configuration.service.jwtIssuer,
        audience: configuration.service.jwtAudience,
        revokedSessions: revokedSessions
    )
    let upstreams = UpstreamPool(configuration: configuration)
    let clients = ClientAddressResolver(trustedProxies: configuration.trustedProxies)
    let rateLimits = EdgeRateLimits(configuration: configuration, clients: clients)
    let cache = EdgeCache(configuration: configuration, metrics: metrics.factory)
    // The cache follows tour-management's events (purges what changed); it stores nothing until the follower is live.
    let follower = cache.flatMap { cache in
        configuration.cacheEvents.map { CacheEventFollower(cache: cache, transport: $0, logger: logger) }
    }
    let relays = RelayGauge()
    let accessLog = AccessLogMiddleware(table: routeTable, factory: metrics.factory, clients: clients)
    let cors = CORSMiddleware(origins: configuration.corsOrigins)
    let forwarder = ProxyForwarder(upstreams: upstreams, clients: clients, metrics: metrics.factory, relays: relays)
    let router = Router(context: ServiceRequestContext.self)
    router.add(middleware: RequestTracingMiddleware())
    router.add(middleware: accessLog)
    router.add(middleware: cors)
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: GatewayMiddleware(
        table: routeTable,
        authentication: AuthenticationMiddleware(verifier: verifier, requirement: .optional),
        rateLimits: rateLimits, cache: cache, forwarder: forwarder,
        maxBodyBytes: configuration.service.maxBodyBytes, mediaMaxBodyBytes: configuration.mediaMaxBodyBytes
    ))
    // Plain proxied requests (reads, small bodies) skip the router (same edge, same shared pieces): see ProxyFastPath.
    let fastPath = configuration.proxyFastPath
        ? ProxyFastPath(table: routeTable, upstreams: upstreams, verifier: verifier, rateLimits: rateLimits, cache: cache,
                        forwarder: forwarder, accessLog: accessLog, cors: cors, clients: clients,
                        maxBodyBytes: configuration.service.maxBodyBytes, mediaMaxBodyBytes: configuration.mediaMaxBodyBytes,
                        logger: logger)
        : nil
    let health = UpstreamHealth(upstreams: upstreams, services: GatewayConfiguration.upstreamServices,
                                required: Set(configuration.requiredServices))
    GatewayOperationalRoutes(readiness: readiness, health: health, metrics: metrics, upstreams: upstreams,
                             openAPI: GatewayService.openAPI).add(to: router)
    try extensions(GatewayRoutes(router: router, verifier: verifier, rateLimits: rateLimits, readiness: readiness, metrics: metrics))
    return GatewayApplication(responder: router.buildResponder(), configuration: configuration, logger: logger, readiness: readiness,
                              metrics: metrics, upstreams: upstreams, rateLimits: rateLimits, cache: cache,
                              routeTable: router.routes.map { ($0.method.rawValue, $0.path.description) },
                              background: [CircuitRecovery(upstreams: upstreams, logger: logger)] + (follower.map { [$0] } ?? []) + background,
                              relays: relays, fastPath: fastPath, onServerRunning: onServerRunning)
}
