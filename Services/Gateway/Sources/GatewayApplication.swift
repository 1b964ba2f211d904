import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceKit
import ServiceLifecycle
import Synchronization

/// The gateway as a Hummingbird application: ServiceKit's tracing, problems and body limits, the edge pipeline in
/// front of the upstreams, the gateway's own routes, and a client idle timeout against slow clients.
public struct GatewayApplication: ApplicationProtocol {
    /// The router's responder.
    public typealias Responder = RouterResponder<ServiceRequestContext>

    /// The router's responder.
    public let responder: Responder
    /// Bind address.
    public let configuration: ApplicationConfiguration
    /// The application logger.
    public let logger: Logger
    /// The gateway's configuration.
    public let gatewayConfiguration: GatewayConfiguration
    /// The registry behind the gateway's own checks in `/health/ready`.
    public let readiness: Readiness
    /// The metrics behind `/metrics`.
    public let metrics: ServiceMetrics
    /// The upstreams, with their breakers and budgets.
    public let upstreams: UpstreamPool
    /// The edge's rate limits.
    public let rateLimits: EdgeRateLimits
    /// The public-answer cache; `nil` when disabled.
    public let cache: EdgeCache?
    /// The gateway's own routes as `(METHOD, OpenAPI path template)` (proxied routes are the route table's, not these):
    /// what the OpenAPI test compares `openapi.yaml` with.
    public let routeTable: [(method: String, path: String)]
    private let background: [any Service]
    /// Client request bodies still being relayed upstream (``RequestBodyRelay``): back to 0 once no request with a
    /// body is in flight.
    public var requestBodiesInFlight: Int { relays.live.load(ordering: .relaxed) }
    let relays: RelayGauge
    /// Plain proxied reads answered outside the router (``ProxyFastPath``); `nil` when configured off.
    let fastPath: ProxyFastPath?
    /// Requests the proxy's fast path has taken so far (0 when it is off).
    public var fastPathRequests: Int { fastPath?.taken.value ?? 0 }
    private let onRunning: @Sendable (any Channel) async -> Void

    init(responder: Responder, configuration: GatewayConfiguration, logger: Logger, readiness: Readiness, metrics: ServiceMetrics,
         upstreams: UpstreamPool, rateLimits: EdgeRateLimits, cache: EdgeCache?, routeTable: [(method: String, path: String)],
         background: [any Service], relays: RelayGauge, fastPath: ProxyFastPath?,
         onServerRunning: @escaping @Sendable (any Channel) async -> Void) {
        self.fastPath = fastPath
        self.routeTable = routeTable
        self.responder = responder
        self.configuration = ApplicationConfiguration(address: .hostname(configuration.service.host, port: configuration.service.port))
        self.logger = logger
        self.gatewayConfiguration = configuration
        self.readiness = readiness
        self.metrics = metrics
        self.upstreams = upstreams
        self.rateLimits = rateLimits
        self.cache = cache
        self.background = background
        self.relays = relays
        self.onRunning = onServerRunning
    }

    /// HTTP/1.1 with an idle timeout: a client that sends nothing for ``GatewayConfiguration/clientIdleTimeout`` —
    /// half a request line, a stalled upload, or an idle keep-alive — is disconnected. Each connection has a
    /// ``ProxyFastPathHandler`` unless the fast path is off.
    public var server: HTTPServerBuilder {
        let fastPath = fastPath
        return .http1OnEventLoops(configuration: .init(idleTimeout: TimeAmount(gatewayConfiguration.clientIdleTimeout)),
                                  connectionHandlers: { fastPath.map { [$0.handler()] } ?? [] })
    }

    /// The upstream clients (closed when the application stops) and the hosted background work; Hummingbird's test
    /// harness runs them around tests too.
    public var services: [any Service] { [UpstreamClientsService(upstreams: upstreams)] + background }

    /// Logs the bound address and calls the `onServerRunning` given at construction.
    public func onServerRunning(_ channel: any Channel) async {
        logger.info("listening", metadata: ["address": .string(channel.localAddress?.description ?? "?")])
        await onRunning(channel)
    }

    /// Runs until SIGTERM/SIGINT, then drains in ServiceKit's order (readiness 503, HTTP, upstream clients).
    public func run() async throws {
        let http = Application(responder: responder, server: server, configuration: configuration,
                               onServerRunning: { channel in await self.onServerRunning(channel) }, logger: logger)
        try await OrderedShutdown.run(http: http, clients: [UpstreamClientsService(upstreams: upstreams)], background: background,
                                      readiness: readiness,
                                      configuration: gatewayConfiguration.service, logger: logger)
    }
}

/// Keeps the upstream HTTP clients open while the gateway runs and shuts them down afterwards.
struct UpstreamClientsService: Service {
    let upstreams: UpstreamPool

    func run() async throws {
        try? await gracefulShutdown()
        await upstreams.shutdown()
    }
}
