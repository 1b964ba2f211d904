import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// One service the gateway forwards to: its base URL, its own upstream connections (one pool per event loop, so its
/// timeout and connection pools — up to 64 connections per loop — are its own), its circuit breaker and its retry
/// budget.
public final class Upstream: Sendable {
    /// The service's name, e.g. `tour-management`.
    public let name: String
    /// Base URL without a trailing slash, e.g. `http://127.0.0.1:8082`.
    public let baseURL: String
    /// How long the upstream may stay silent (before its answer's head, between body bytes) before 504.
    public let timeout: Duration
    /// The circuit breaker guarding calls.
    public let breaker: CircuitBreaker
    /// The retries this upstream may still receive.
    public let retryBudget: RetryBudget
    /// One client per event loop of the server's group, each keeping its connections on its own loop.
    private let clients: [ObjectIdentifier: HTTPClient]
    /// The client of the first loop, for callers on no loop of the group.
    private let fallback: HTTPClient
    /// The gateway's own keep-alive connections for proxied requests (``UpstreamConnectionPool``, one per event loop);
    /// `nil` for an `https` upstream, which is proxied through ``client``. The readiness checks of ``CircuitRecovery``
    /// and ``UpstreamHealth`` stay on ``client``: they are not per request.
    let connections: UpstreamConnections?

    /// The client whose connections live on the caller's event loop: a request answered on a connection's loop
    /// (ServiceKit's event-loop server) goes upstream and comes back without leaving that thread. AsyncHTTPClient's
    /// own pool only *prefers* the caller's loop and, with an idle connection on another loop, takes that one (two
    /// thread hand-offs per request, ~0.5 ms at p50 on the reference machine).
    var client: HTTPClient {
        MultiThreadedEventLoopGroup.currentEventLoop.flatMap { clients[ObjectIdentifier($0)] } ?? fallback
    }

    /// Creates the upstream and its clients.
    init(name: String, baseURL: URL, timeout: Duration, breaker: CircuitBreaker, retryBudget: RetryBudget) {
        self.name = name
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.timeout = timeout
        self.breaker = breaker
        self.retryBudget = retryBudget
        var configuration = HTTPClient.Configuration()
        let amount = TimeAmount.nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + Int64(timeout.components.attoseconds / 1_000_000_000))
        configuration.timeout = .init(connect: amount, read: amount)
        // A refused connection must fail now (503), not be retried with back-off until the connect timeout: the
        // gateway has its own retry policy and circuit breaker.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        // The gateway propagates `traceparent` itself (ForwardedHeaders); the client's own spans, even into the
        // no-op tracer, cost ~5 % of the gateway's CPU per proxied request.
        configuration.tracing.tracer = nil
        connections = UpstreamTarget(baseURL: baseURL).map { UpstreamConnections(target: $0, timeout: amount) }
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        var clients: [ObjectIdentifier: HTTPClient] = [:]
        for loop in loops {
            clients[ObjectIdentifier(loop)] = HTTPClient(eventLoopGroupProvider: .shared(loop), configuration: configuration)
        }
        self.clients = clients
        self.fallback = clients[ObjectIdentifier(loops[0])]!
    }

    /// Closes the clients' connections.
    func shutdown() async {
        await connections?.shutdown()
        for client in clients.values { try? await client.shutdown() }
    }
}

/// The upstreams by service name, built from the configuration; a service without a URL is absent (503). A service
/// may run as several instances (`WAYPOINT_GATEWAY_<SERVICE>_URLS`, e.g. navigation): each is an ``Upstream`` of its
/// own — own clients, circuit breaker and retry budget — and requests go round-robin over the instances whose breaker
/// is not open (all of them when every breaker is open: the breakers then decide).
public struct UpstreamPool: Sendable {
    /// The first instance by service name (health checks of one instance, tests).
    public let upstreams: [String: Upstream]
    /// Every instance by service name, in configuration order.
    public let instances: [String: [Upstream]]
    private let turns: [String: Turn]

    /// Whose turn it is, per service.
    final class Turn: Sendable {
        private let next = Mutex(0)
        func take(_ count: Int) -> Int { next.withLock { value in defer { value &+= 1 }; return value % count } }
    }

    /// One upstream per configured instance of each service.
    public init(configuration: GatewayConfiguration) {
        var instances: [String: [Upstream]] = [:]
        for name in GatewayConfiguration.upstreamServices {
            let urls = configuration.instanceURLs(of: name)
            guard !urls.isEmpty else { continue }
            instances[name] = urls.map { url in
                Upstream(
                    name: name, baseURL: url, timeout: configuration.timeout(of: name),
                    breaker: CircuitBreaker(failureThreshold: configuration.circuitFailureThreshold, openDuration: configuration.circuitOpenDuration,
                                            initialOpenDuration: configuration.circuitInitialOpenDuration),
                    retryBudget: RetryBudget(percent: configuration.retryBudgetPercent, minimumPerSecond: configuration.retryMinPerSecond))
            }
        }
        self.instances = instances
        upstreams = instances.compactMapValues(\.first)
        turns = instances.mapValues { _ in Turn() }
    }

    /// The first instance of `name`, if configured.
    public subscript(name: String) -> Upstream? { upstreams[name] }

    /// The instance of `name` a request goes to: the next in turn whose breaker is not open.
    public func pick(_ name: String) -> Upstream? {
        guard let all = instances[name], let turn = turns[name] else { return nil }
        guard all.count > 1 else { return all.first }
        let start = turn.take(all.count)
        for offset in 0..<all.count {
            let candidate = all[(start + offset) % all.count]
            if candidate.breaker.state != .open { return candidate }
        }
        return all[start]
    }

    /// Closes every client.
    func shutdown() async {
        for upstream in instances.values.joined() { await upstream.shutdown() }
    }
}
