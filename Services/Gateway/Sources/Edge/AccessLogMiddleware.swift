import HTTPTypes
import Hummingbird
import Logging
import Metrics
import ServiceKit
import Synchronization

/// One JSON access-log line per request (with the request id and trace id of ServiceKit's tracing middleware),
/// `gateway_request_duration_seconds{method,route,upstream,status}`, a histogram in seconds, and
/// `gateway_cache_requests_total{result}` (`hit`/`miss`) for cacheable routes. The gateway's probe routes
/// (`/health/live`, `/health/ready`, `/metrics`) are logged at debug level, everything else at info.
///
/// `route` is a route-table template (`/v1/tours/*`), the gateway's own route pattern (`/health/ready`), `hidden` or
/// `unmatched` — never a raw path — so clients cannot create series. Durations are measured to the answer's head:
/// a streamed body may go on afterwards.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    static let metricName = "gateway_request_duration_seconds"

    let table: RouteTable
    let factory: any MetricsFactory
    /// Who the client is (`client_ip`).
    let clients: ClientAddressResolver
    /// The duration timers by `method route upstream status` (a bounded set: route templates, not paths), so a request
    /// does not look its series up in the metrics factory.
    private let timers = TimerCache()
    /// `gateway_cache_requests_total{result}` for `hit` and `miss`, made once.
    private let cacheCounters: [String: Counter]

    init(table: RouteTable, factory: any MetricsFactory, clients: ClientAddressResolver) {
        self.table = table
        self.factory = factory
        self.clients = clients
        cacheCounters = Dictionary(uniqueKeysWithValues: ["hit", "miss"].map {
            ($0, Counter(label: "gateway_cache_requests_total", dimensions: [("result", $0)], factory: factory))
        })
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let (route, upstream) = labels(request, context: context)
        do {
            let response = try await next(request, context)
            record(request, context, status: Int(response.status.code), route: route, upstream: upstream, since: start,
                   cache: response.headers[EdgeCache.xCache])
            return response
        } catch {
            let status = Int((error as? any HTTPResponseError)?.status.code ?? 500)
            record(request, context, status: status, route: route, upstream: upstream, since: start, cache: nil)
            throw error
        }
    }

    private func labels(_ request: Request, context: Context) -> (route: String, upstream: String) {
        switch table.resolve(request.uri.path) {
        case .proxied(let route): (route.template, route.upstream ?? "none")
        case .hidden: ("hidden", "none")
        case .local:
            (context.endpointPath.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "unmatched", "gateway")
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, route: String, upstream: String,
                        since start: ContinuousClock.Instant, cache: String?) {
        record(method: request.method, path: request.uri.path, status: status, route: route, upstream: upstream,
               client: clients.client(of: request, context: context), traceparent: context.traceparent,
               logger: context.logger, since: start, cache: cache)
    }

    /// Records one answered request: its duration in the timer of its series, the cache counter, and the access-log
    /// line on `logger` — the request's, with its request, trace and span ids, or the application's with those ids in
    /// `requestMetadata`. Also for answers written outside the router (the proxy fast path), so both write the same line
    /// and series.
    func record(method: HTTPRequest.Method, path: String, status: Int, route: String, upstream: String, client: String,
                traceparent: String, logger: Logger, requestMetadata: Logger.Metadata = [:], since start: ContinuousClock.Instant,
                cache: String?) {
        let elapsed = ContinuousClock.now - start
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        timers.timer(method: method.rawValue, route: route, upstream: upstream, status: status, factory: factory)
            .recordNanoseconds(nanoseconds)
        var metadata = requestMetadata
        metadata.reserveCapacity(requestMetadata.count + 9)
        metadata["http_method"] = .string(method.rawValue)
        metadata["http_path"] = .string(path)
        metadata["http_status"] = .stringConvertible(status)
        metadata["duration_ms"] = .stringConvertible(Double(nanoseconds / 1000) / 1000)
        metadata["route"] = .string(route)
        metadata["upstream"] = .string(upstream)
        metadata["client_ip"] = .string(client)
        metadata["traceparent"] = .string(traceparent)
        if let cache {
            metadata["cache"] = .string(cache)
            cacheCounters[cache]?.increment()
        }
        // Probes (the launcher's readiness polls at start, an orchestrator's every few seconds, Prometheus scrapes)
        // would drown the requests people read the log for: their lines are debug; their durations are still recorded.
        let level: Logger.Level = upstream == "gateway" && Self.probeRoutes.contains(route) ? .debug : .info
        logger.log(level: level, "access", metadata: metadata)
    }

    /// The gateway's own routes that machines poll.
    static let probeRoutes: Set<String> = ["/health/live", "/health/ready", "/metrics"]
}

/// `gateway_request_duration_seconds` timers, made once per series.
final class TimerCache: Sendable {
    private let timers = Mutex<[String: Timer]>([:])

    func timer(method: String, route: String, upstream: String, status: Int, factory: any MetricsFactory) -> Timer {
        let key = "\(method) \(route) \(upstream) \(status)"
        return timers.withLock { timers in
            if let timer = timers[key] { return timer }
            let timer = Timer(label: AccessLogMiddleware.metricName,
                              dimensions: [("method", method), ("route", route), ("upstream", upstream), ("status", String(status))],
                              factory: factory)
            timers[key] = timer
            return timer
        }
    }
}
