import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP shell of a Waypoint service: router with ServiceKit's middlewares and operational routes,
/// the service's background work, and an ordered graceful shutdown.
///
/// A service's composition root returns one:
/// ```swift
/// func buildApplication(configuration: ServiceConfiguration, …) async throws -> some ApplicationProtocol {
///     try ServiceApplication(configuration: configuration, readiness: readiness, openAPI: openAPI,
///                            clients: [postgresClient], background: [projections, relay]) { routes in … }
/// }
/// ```
/// `main` calls `try await app.runService()` (SIGTERM/SIGINT trigger graceful shutdown); tests use
/// `app.test(.router)` or `.live`. On shutdown, in this order:
/// 1. readiness turns 503 and stays so for ``ServiceConfiguration/drainDelay``;
/// 2. the HTTP server stops accepting connections and finishes in-flight requests;
/// 3. `background` services stop, last listed first (consumers commit, relays and producers flush);
/// 4. `clients` stop, last listed first (database clients close).
///
/// Steps follow from swift-service-lifecycle stopping a group's services in reverse order of the list
/// `clients + background + [HTTP server, readiness gate]`, each after the previous one returned; the
/// whole shutdown is bounded by ``ServiceConfiguration/drainTimeout``, after which the rest is cancelled.
public struct ServiceApplication: ApplicationProtocol {
    /// The router's responder.
    public typealias Responder = RouterResponder<ServiceRequestContext>

    /// The readiness registry behind `/health/ready`.
    public let readiness: Readiness
    /// The metrics behind `/metrics`.
    public let metrics: ServiceMetrics
    /// The configuration the application was built from.
    public let serviceConfiguration: ServiceConfiguration
    /// Every route the router serves as `(lower-case method, OpenAPI path template)`, e.g. `("get", "/v1/tours/{id}")`:
    /// what each service's OpenAPI test compares its `openapi.yaml` with.
    public let routeTable: [(method: String, path: String)]
    private let http: Application<Responder>
    private let clients: [any Service]
    private let background: [any Service]

    /// Builds the application.
    ///
    /// - Parameters:
    ///   - configuration: Host, port, limits, token settings, log level, drain timings.
    ///   - readiness: The registry components register their checks with.
    ///   - metrics: Where metrics go; ``ServiceMetrics/shared`` in production, a fresh instance in tests.
    ///   - keySource: Access-token keys; `nil` fetches ``ServiceConfiguration/jwksURL`` with ``JWKSProvider``.
    ///   - revokedSessions: Sessions whose access tokens are refused (``RevokedSessions`` fed from `waypoint.auth`); `nil`
    ///     checks none.
    ///   - openAPI: The document served at `/openapi.yaml`.
    ///   - bodyLimitOverrides: Routes whose bodies may be larger (or must be smaller) than `maxBodyBytes`, e.g. uploads.
    ///   - clients: Connection pools and clients (e.g. `PostgresClient`): started with the app, stopped last.
    ///   - background: Consumers, relays, projections: stopped after HTTP has drained, before `clients`.
    ///   - logger: The application logger; defaults to one labelled with the service name.
    ///   - onServerRunning: Called once the server listens (tests read the bound port here).
    ///   - routes: Adds the service's routes.
    public init(
        configuration: ServiceConfiguration,
        readiness: Readiness = Readiness(),
        metrics: ServiceMetrics = .shared,
        keySource: (any AccessTokenKeySource)? = nil,
        revokedSessions: (any RevokedSessionLookup)? = nil,
        openAPI: OpenAPIDocument? = nil,
        bodyLimitOverrides: [BodyLimitOverride] = [],
        clients: [any Service] = [],
        background: [any Service] = [],
        logger: Logger? = nil,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
        routes: (ServiceRoutes) throws -> Void
    ) throws {
        let logger = logger ?? ServiceLogging.makeLogger(configuration)
        let verifier = AccessTokenVerifier(
            keys: keySource ?? JWKSProvider(url: configuration.jwksURL, logger: logger),
            issuer: configuration.jwtIssuer,
            audience: configuration.jwtAudience,
            revokedSessions: revokedSessions
        )
        let router = Self.makeRouter(configuration: configuration, metrics: metrics, bodyLimitOverrides: bodyLimitOverrides)
        OperationalRoutes(readiness: readiness, metrics: metrics, openAPI: openAPI).add(to: router)
        try routes(
            ServiceRoutes(router: router, verifier: verifier, configuration: configuration, readiness: readiness, metrics: metrics, logger: logger)
        )
        // Hummingbird describes captures as `{name}`, OpenAPI's template syntax.
        self.routeTable = router.routes.map { ($0.method.rawValue.lowercased(), $0.path.description) }
        self.http = Self.makeServer(router: router, configuration: configuration, logger: logger, onServerRunning: onServerRunning)
        self.readiness = readiness
        self.metrics = metrics
        self.serviceConfiguration = configuration
        self.clients = clients
        self.background = background
        if configuration.internalToken == nil {
            logger.warning("no internal token configured: every /v1/internal request will be refused")
        }
    }

    /// A router with ServiceKit's middlewares, outermost first: request id and trace context, HTTP
    /// metrics, problem rendering, body limit, internal-route guard.
    static func makeRouter(configuration: ServiceConfiguration, metrics: ServiceMetrics,
                           bodyLimitOverrides: [BodyLimitOverride] = []) -> Router<ServiceRequestContext> {
        let router = Router(context: ServiceRequestContext.self)
        router.add(middleware: RequestTracingMiddleware())
        router.add(middleware: HTTPMetricsMiddleware(factory: metrics.factory))
        router.add(middleware: ProblemMiddleware())
        router.add(middleware: BodyLimitMiddleware(limit: configuration.maxBodyBytes, overrides: bodyLimitOverrides))
        router.add(middleware: InternalTokenMiddleware(token: configuration.internalToken))
        return router
    }

    /// The Hummingbird server bound to the configured host and port.
    static func makeServer(
        router: Router<ServiceRequestContext>,
        configuration: ServiceConfiguration,
        logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) -> Application<Responder> {
        Application(
            router: router,
            server: .http1OnEventLoops(),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                logger.info("listening", metadata: ["address": .string(channel.localAddress?.description ?? "?")])
                await onServerRunning(channel)
            },
            logger: logger
        )
    }

    /// The router's responder, for `app.test(.router)`.
    public var responder: Responder { http.responder }
    /// Hummingbird's configuration (bind address).
    public var configuration: ApplicationConfiguration { http.configuration }
    /// The application logger.
    public var logger: Logger { http.logger }
    /// Forwards to the `onServerRunning` given at construction.
    public func onServerRunning(_ channel: any Channel) async { await http.onServerRunning(channel) }
    /// `clients` then `background`; Hummingbird's test harness runs them around router tests.
    public var services: [any Service] { clients + background }

    /// Runs clients, background services, the HTTP server and the readiness gate until graceful
    /// shutdown, then stops them in the documented order.
    public func run() async throws {
        // SIGTERM (docker stop, systemd) and SIGINT (Ctrl-C) start the orderly shutdown: readiness 503, drain, stop.
        try await OrderedShutdown.run(http: http, clients: clients, background: background, readiness: readiness,
                                      configuration: serviceConfiguration, logger: logger)
    }
}
