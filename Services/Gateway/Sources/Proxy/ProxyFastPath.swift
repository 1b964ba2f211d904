import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import ServiceKit
import Synchronization

/// The proxy's fast path: plain proxied requests answered by a channel handler on the client connection's event loop,
/// without the router's per-request machinery (a task, an async request stream and writer, the middleware chain).
///
/// It takes a request when all of these hold, and passes every other one to the router unchanged:
/// - `GET` or `HEAD` without a body (`Content-Length` and `Transfer-Encoding` absent); or `POST`, `PUT`, `PATCH` or
///   `DELETE` with no body or a small one of declared length (`Content-Length` at most ``largestBody`` and within the
///   route's body limit — a larger one is the router's, which streams it or answers 413); never chunked
///   (`Transfer-Encoding`), no `Expect`, no `Upgrade`, no `Connection: close`;
/// - the route table proxies its path to an upstream reached over plain HTTP (the gateway's own connection pools);
/// - anonymous, or a bearer token the verifier remembers as valid (``AccessTokenVerifier/rememberedIdentity(_:)``) — a
///   token seen for the first time goes through the router, which verifies it (and remembers it);
/// - no earlier request of the connection is still being answered by the router (answers stay in order).
///
/// What it does is what the router's edge does, with the same shared pieces: the request id and trace
/// (``RequestTracingMiddleware/stamp(_:requestId:trace:)``), the rate limits (``EdgeRateLimits/decide(path:identity:client:)``),
/// the cache (``EdgeCache/hit(_:now:)``, ``EdgeCache/storing(_:_:key:upstream:fetchedAt:)``), CORS
/// (``CORSMiddleware/stamp(_:origin:)``), the forwarded fields (``ForwardedHeaders``), the breaker, retry budget and one
/// retry of a refused connection or a 503 for a bodiless idempotent request (``ProxyForwarder``), the cache's purge
/// after a successful write (``EdgeCache/wrote(status:headers:upstream:)``), the problems, and the access-log line and duration
/// series (``AccessLogMiddleware/record(method:path:status:route:upstream:client:traceparent:logger:requestMetadata:since:cache:)``).
/// A small body is collected on the loop and sent upstream with the request's head, in one write. The answer streams
/// with back-pressure: the upstream connection stops reading while the client's socket is full.
struct ProxyFastPath: Sendable {
    let table: RouteTable
    let upstreams: UpstreamPool
    let verifier: AccessTokenVerifier
    let rateLimits: EdgeRateLimits
    let cache: EdgeCache?
    let forwarder: ProxyForwarder
    let accessLog: AccessLogMiddleware
    let cors: CORSMiddleware
    let clients: ClientAddressResolver
    /// The body limits (``RoutePolicies/bodyLimit(method:path:standard:large:)``).
    let maxBodyBytes: Int
    let mediaMaxBodyBytes: Int
    let logger: Logger
    /// Requests the fast path took (tests and diagnostics).
    let taken = TakenCounter()

    /// Counts the requests the fast path took.
    final class TakenCounter: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func add() { count.add(1, ordering: .relaxed) }
    }

    /// The largest request body the fast path collects (position updates, small JSON commands, a ride's chunk of a
    /// minute); a larger one streams through the router.
    static let largestBody = 64 << 10

    /// Methods whose bodies the fast path may carry.
    static let writeMethods: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]

    /// A handler for one client connection.
    func handler() -> ProxyFastPathHandler { ProxyFastPathHandler(path: self) }

    /// What the fast path needs of a request it takes.
    struct Plan {
        let request: HTTPRequest
        let uri: URI
        let route: GatewayRoute
        let upstream: Upstream
        let connections: UpstreamConnections
        let identity: AuthenticatedIdentity?
        /// The body's declared length (0: none).
        let bodyLength: Int
        /// Sent once more after a refused connection or a 503: idempotent and without a body (the router's rule).
        var replayable: Bool { ProxyForwarder.isReplayable(request.method, hasBody: bodyLength > 0) }
    }

    /// The plan for `request`, or `nil` when the router answers it.
    func plan(_ request: HTTPRequest) -> Plan? {
        let method = request.method
        let fields = request.headerFields
        guard fields[.transferEncoding] == nil, fields[.expect] == nil, fields[.upgrade] == nil else { return nil }
        var bodyLength = 0
        if method == .get || method == .head {
            guard fields[.contentLength] == nil else { return nil }
        } else if Self.writeMethods.contains(method) {
            if let declared = fields[.contentLength] {
                // One well-formed value (NIO's parser refuses conflicting ones; a list of equal ones is the router's).
                guard let length = Int(declared), length >= 0, length <= Self.largestBody else { return nil }
                bodyLength = length
            }
        } else {
            return nil
        }
        if let connection = fields[.connection], connection.lowercased().contains("close") { return nil }
        let uri = URI(request.path ?? "")
        guard case .proxied(let route) = table.resolve(uri.path), let name = route.upstream else { return nil }
        if bodyLength > 0,
           bodyLength > RoutePolicies.bodyLimit(method: method, path: uri.path, standard: maxBodyBytes, large: mediaMaxBodyBytes) {
            return nil  // the router's 413
        }
        var identity: AuthenticatedIdentity?
        if let authorization = fields[.authorization] {
            guard let token = AuthenticationMiddleware.bearerToken(in: authorization),
                  let remembered = verifier.rememberedIdentity(token)
            else { return nil }
            identity = remembered
        }
        // Picked once (round robin over instances); an upstream proxied through AsyncHTTPClient (`https`) is the router's.
        guard let upstream = upstreams.pick(name), let connections = upstream.connections else { return nil }
        return Plan(request: request, uri: uri, route: route, upstream: upstream, connections: connections, identity: identity,
                    bodyLength: bodyLength)
    }
}

/// One client connection's side of the ``ProxyFastPath``: sits after Hummingbird's connection-state handler (which sees
/// the requests and answers of both paths, for its idle timeout and graceful close) and before the router's request
/// loop.
///
/// A request it takes is answered here, on the loop; while that answer is being written, what the client sends next
/// (pipelined requests, a parse error) is held and handled afterwards, in order, and the socket is not read further. A
/// request it passes on goes to the router, and so does everything after it until the router has answered all it
/// was given.
final class ProxyFastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let path: ProxyFastPath
    private var context: ChannelHandlerContext?
    /// Requests passed to the router and not answered yet (their answers' ends pass through ``write(context:data:promise:)``).
    private var routerRequests = 0
    /// A request the fast path takes, between its head and its end.
    private var planned: ProxyFastPath.Plan?
    /// Its body so far.
    private var plannedBody: ByteBuffer?
    /// The request being answered here.
    private var current: FastExchange?
    /// What came while ``current`` was being answered.
    private var held = CircularBuffer<Held>()
    private var draining = false
    /// A read was asked for while ``heldLimit`` parts were held; made once they are handled.
    private var readPending = false
    private var peer: String?

    enum Held {
        case part(HTTPRequestPart)
        case error(any Error)
    }

    init(path: ProxyFastPath) {
        self.path = path
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        peer = context.channel.remoteAddress?.ipAddress
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        if peer == nil { peer = context.channel.remoteAddress?.ipAddress }
        context.fireChannelActive()
    }

    /// What arrives now waits: an answer is being written here, or what came before it is still held.
    private var isHolding: Bool { current != nil || (!held.isEmpty && !draining) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if isHolding {
            held.append(.part(part))
            return
        }
        handle(part, context: context)
    }

    /// Takes `part` or passes it to the router; `true` when it was passed on.
    @discardableResult
    private func handle(_ part: HTTPRequestPart, context: ChannelHandlerContext) -> Bool {
        switch part {
        case .head(let request):
            if routerRequests == 0, let plan = path.plan(request) {
                planned = plan
                return false
            }
            routerRequests += 1
            context.fireChannelRead(wrapInboundOut(part))
            return true
        case .body(let chunk):
            if let plan = planned {
                let collected = plannedBody?.readableBytes ?? 0
                if collected + chunk.readableBytes <= plan.bodyLength {
                    if plannedBody == nil { plannedBody = chunk } else { plannedBody!.writeImmutableBuffer(chunk) }
                    return false
                }
                // More body than the fields declared (the parser knows better): the router takes the request whole.
                passToRouter(plan, context: context)
            }
            context.fireChannelRead(wrapInboundOut(part))
            return true
        case .end:
            guard let plan = planned else {
                context.fireChannelRead(wrapInboundOut(part))
                return true
            }
            guard (plannedBody?.readableBytes ?? 0) == plan.bodyLength else {
                // Less body than declared (the parser waits for all of it; kept for safety): the router's.
                passToRouter(plan, context: context)
                context.fireChannelRead(wrapInboundOut(part))
                return true
            }
            planned = nil
            let body = plannedBody
            plannedBody = nil
            path.taken.add()
            let exchange = FastExchange(plan: plan, body: body, path: path, handler: self, context: context, peer: peer)
            current = exchange
            exchange.start()
            return false
        }
    }

    /// `plan`'s request goes to the router after all, with the body collected so far; its next parts follow it there.
    private func passToRouter(_ plan: ProxyFastPath.Plan, context: ChannelHandlerContext) {
        planned = nil
        routerRequests += 1
        context.fireChannelRead(wrapInboundOut(.head(plan.request)))
        if let body = plannedBody {
            plannedBody = nil
            context.fireChannelRead(wrapInboundOut(.body(body)))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if isHolding {
            held.append(.error(error))
            return
        }
        // A request taken here and broken off (a parse error in its body) is dropped: the router sees the error alone,
        // as for a request broken before its head was complete.
        planned = nil
        plannedBody = nil
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        held.removeAll()
        planned = nil
        plannedBody = nil
        if let current {
            self.current = nil
            current.clientGone()
        }
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { current?.clientCaughtUp() }
        context.fireChannelWritabilityChanged()
    }

    /// Parts held at most before the socket is no longer read (a client pipelining a flood behind a slow answer).
    static let heldLimit = 64

    func read(context: ChannelHandlerContext) {
        // Reads go on while an answer is written here (stopping them would cost two `epoll_ctl` calls per request);
        // only a client that pipelines more than the limit behind it is no longer read.
        if held.count >= Self.heldLimit {
            readPending = true
        } else {
            context.read()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // (A parse error's answer has no request passed on: never below 0.)
        if case .end = unwrapOutboundIn(data) { routerRequests = max(0, routerRequests - 1) }
        context.write(data, promise: promise)
    }

    /// The answer of `exchange` is written (or the client is gone): what was held is handled now, in order.
    fileprivate func finished(_ exchange: FastExchange) {
        guard current === exchange, let context else { return }
        current = nil
        guard !draining else { return }  // the loop below goes on
        draining = true
        var passedOn = false
        while current == nil, let next = held.popFirst() {
            switch next {
            case .part(let part):
                if handle(part, context: context) { passedOn = true }
            case .error(let error):
                planned = nil
                plannedBody = nil
                context.fireErrorCaught(error)
                passedOn = true
            }
        }
        draining = false
        // Outside a read of this channel: the router's side takes what it was given at the end of a read.
        if passedOn { context.fireChannelReadComplete() }
        if held.count < Self.heldLimit, readPending {
            readPending = false
            context.read()
        }
    }
}

/// One request answered on the fast path: the edge's checks, the cache, the upstream call (and its one retry), the
/// answer written part by part as the upstream sends it. Lives on the client connection's loop, which is its upstream
/// pool's loop.
private final class FastExchange: UpstreamAnswerSink {
    let plan: ProxyFastPath.Plan
    /// The request's body, whole (`nil`: none).
    let body: ByteBuffer?
    let path: ProxyFastPath
    /// Told when the answer is complete (never after the client is gone).
    weak var handler: ProxyFastPathHandler?
    let context: ChannelHandlerContext
    let started = ContinuousClock.now
    let requestId: String
    let trace: TraceContext
    let client: String
    var verdict: EdgeRateLimits.Verdict?
    /// `X-Cache` of a cacheable route's answer.
    var cacheResult: String?
    /// The cache key of an eligible request, with the store's mark taken before the upstream call.
    var cacheKey: (key: String, mark: UInt64)?
    /// The answer's copy for the cache, and what stores it.
    var copy: BodyCopy?
    var store: (@Sendable ([UInt8]) -> Void)?

    var attempt = 1
    var permission: CircuitBreaker.Permission?
    var exchange: UpstreamExchange?
    /// A 503 that is retried: its body is read and dropped.
    var discarding = false
    var headWritten = false
    /// Flushed per chunk (a large or streamed answer); a small one is flushed once, at its end.
    var flushEachChunk = false
    var paused = false
    var done = false

    init(plan: ProxyFastPath.Plan, body: ByteBuffer?, path: ProxyFastPath, handler: ProxyFastPathHandler,
         context: ChannelHandlerContext, peer: String?) {
        self.plan = plan
        self.body = body
        self.path = path
        self.handler = handler
        self.context = context
        let fields = plan.request.headerFields
        requestId = RequestIdentifier.accepting(fields[ServiceHeaders.requestID])
        trace = TraceContext.continuing(fields[ServiceHeaders.traceparent])
        client = path.clients.client(fields: fields, peer: peer)
    }

    /// What the request's log lines carry besides their own fields (the router's request logger has them as its
    /// metadata).
    var requestMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = [
            "request_id": .string(requestId), "trace_id": .string(trace.traceId), "span_id": .string(trace.spanId),
        ]
        if let identity = plan.identity { metadata["user_id"] = .string(identity.subject) }
        return metadata
    }

    /// The request's logger, made when something besides the access-log line is logged (a refusal, a failed call);
    /// the access-log line goes to the application's logger with ``requestMetadata``.
    lazy var logger: Logger = {
        var logger = path.logger
        for (key, value) in requestMetadata { logger[metadataKey: key] = value }
        return logger
    }()

    var method: HTTPRequest.Method { plan.request.method }

    func start() {
        if let verdict = path.rateLimits.decide(path: plan.uri.path, identity: plan.identity, client: client) {
            self.verdict = verdict
            if let problem = verdict.rejection {
                logger.notice("rate limited", metadata: ["policy": .string(verdict.policy.name), "key": .string(verdict.key)])
                return answer(problem)
            }
        }
        if let cache = path.cache, RoutePolicies.isCacheable(method: method, path: plan.uri.path) {
            cacheResult = "miss"
            let fields = plan.request.headerFields
            if CacheRules.isEligible(fields: fields) {
                let key = CacheRules.key(method: method, path: plan.uri.path, query: plan.uri.query, fields: fields)
                if let hit = cache.hit(key) {
                    cacheResult = "hit"
                    return answer(status: .ok, headers: hit.headers, body: hit.body, cache: true)
                }
                cacheKey = (key, cache.store.mark)
            }
        }
        plan.upstream.retryBudget.deposit()
        call()
    }

    // MARK: the upstream call

    private func call() {
        let upstream = plan.upstream
        let permission = upstream.breaker.acquire()
        if case .refused(let retryAfter) = permission {
            return answer(ProxyForwarder.circuitOpen(upstream, retryAfter: retryAfter))
        }
        self.permission = permission
        guard let pool = plan.connections.pool(on: context.eventLoop) else {
            // Not one of the group's loops (cannot happen with the server's group): the router's path would hop.
            upstream.breaker.release(permission)
            return answer(.serviceUnavailable("The \(upstream.name) service is not available.", retryAfter: .seconds(5)))
        }
        let exchange = UpstreamExchange(request: upstreamRequest(target: plan.connections.target), pool: pool, sink: self)
        self.exchange = exchange
        pool.start(exchange)
    }

    private func upstreamRequest(target: UpstreamTarget) -> UpstreamRequest {
        let request = plan.request
        let path = ProxyForwarder.pathAndQuery(plan.uri)
        var headers = ForwardedHeaders.upstreamRequest(fields: request.headerFields, authority: request.authority,
                                                       requestId: requestId, trace: trace, client: client)
        headers.add(name: "Host", value: target.hostHeader)
        let method = HTTPMethod(rawValue: request.method.rawValue)
        if let body, body.readableBytes > 0 {
            return ProxyForwarder.wholeBodyRequest(method: method, target: target.pathPrefix + path, headers: headers, body: body)
        }
        return ProxyForwarder.bodilessRequest(method: method, target: target.pathPrefix + path, headers: headers,
                                              readSmallBodyWhole: false, replayable: plan.replayable)
    }

    /// Once more after the forwarder's pause, when the request may be sent again and the budget allows: a refused
    /// connection or a 503.
    private func retryIfAllowed() -> Bool {
        guard plan.replayable, path.forwarder.allowsRetry(after: attempt, upstream: plan.upstream) else { return false }
        attempt += 1
        context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(path.forwarder.retryDelay)) { [self] in
            guard !done else { return }
            if let previous = exchange {
                // A 503 whose body is still coming: its connection goes (its failure is not reported: discarding).
                exchange = nil
                previous.cancel()
            }
            discarding = false
            call()
        }
        return true
    }

    func upstreamHead(_ head: HTTPResponseHead) {
        guard !done else { return }
        let status = HTTPResponse.Status(code: Int(head.status.code), reasonPhrase: head.status.reasonPhrase)
        if let permission {
            path.forwarder.answered(status: status, upstream: plan.upstream, permission: permission)
            self.permission = nil
        }
        if status == .serviceUnavailable, retryIfAllowed() {
            discarding = true
            return
        }
        var headers = ForwardedHeaders.clientResponse(head.headers)
        if let cache = path.cache, EdgeCache.unsafeMethods.contains(method) {
            cache.wrote(status: status, headers: headers, upstream: plan.upstream.name)
        }
        if let cacheKey, let cache = path.cache,
           let store = cache.storing(status, headers, key: cacheKey.key, upstream: plan.upstream.name, fetchedAt: cacheKey.mark) {
            self.store = store
            copy = BodyCopy(limit: cache.store.maximumEntryBytes)
        }
        EdgeCache.removeInternalFields(&headers)
        let declared = headers[.contentLength].flatMap(Int.init)
        flushEachChunk = declared.map { $0 > UpstreamBody.bufferedLimit } ?? true
        writeHead(status: status, headers: headers, cache: true)
    }

    func upstreamBody(_ chunk: ByteBuffer) -> Bool {
        guard !done, !discarding else { return true }
        copy?.append(chunk)
        if flushEachChunk {
            context.writeAndFlush(NIOAny(HTTPResponsePart.body(chunk)), promise: nil)
        } else {
            context.write(NIOAny(HTTPResponsePart.body(chunk)), promise: nil)
        }
        if context.channel.isWritable { return true }
        if !flushEachChunk { context.flush() }
        paused = true
        return false
    }

    func upstreamEnd() {
        exchange = nil
        guard !done else { return }
        if discarding { return }  // the retry is scheduled
        if let store, let whole = copy?.take() { store(whole) }
        writeEnd()
    }

    func upstreamFailed(_ error: any Error) {
        exchange = nil
        guard !done else { return }
        if discarding { return }  // the 503 broke off; the retry is scheduled all the same
        if headWritten {
            // The upstream broke off in the middle of the body: the client sees the part that came, then the cut.
            context.flush()
            context.close(promise: nil)
            complete()
            return
        }
        guard let permission else { return }
        self.permission = nil
        let (problem, retryable) = path.forwarder.failed(error, upstream: plan.upstream, permission: permission, logger: logger)
        if retryable, retryIfAllowed() { return }
        answer(problem)
    }

    /// The client's socket drained: the upstream connection reads on.
    func clientCaughtUp() {
        guard paused else { return }
        paused = false
        exchange?.resumeReading()
    }

    /// The client closed its connection: the upstream call is abandoned (its connection closes, the breaker is not told).
    func clientGone() {
        guard !done else { return }
        done = true
        if let permission {
            plan.upstream.breaker.release(permission)
            self.permission = nil
        }
        if let exchange {
            self.exchange = nil
            exchange.cancel()
        }
    }

    // MARK: the answer

    private func answer(_ problem: Problem) {
        do {
            let (headers, body) = try problem.rendered(instance: plan.uri.path, requestId: requestId)
            answer(status: problem.status, headers: headers, body: body, cache: false)
        } catch {
            answer(status: .internalServerError, headers: [.contentLength: "0"], body: ByteBuffer(), cache: false)
        }
    }

    private func answer(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer, cache: Bool) {
        writeHead(status: status, headers: headers, cache: cache)
        if method != .head, body.readableBytes > 0 { context.write(NIOAny(HTTPResponsePart.body(body)), promise: nil) }
        writeEnd()
    }

    /// The head, with what the edge adds to every answer: `X-Cache` (on an upstream's answer or a hit of a cacheable
    /// route — `cache` — not on a problem), the rate-limit fields, CORS, the request id and trace; the access log and
    /// the duration series record the answer here (durations run to the head, as the router's).
    private func writeHead(status: HTTPResponse.Status, headers: HTTPFields, cache: Bool) {
        var headers = headers
        if cache, let cacheResult { headers[EdgeCache.xCache] = cacheResult }
        verdict?.stamp(&headers)
        path.cors.stamp(&headers, origin: plan.request.headerFields[.origin])
        RequestTracingMiddleware.stamp(&headers, requestId: requestId, trace: trace)
        headWritten = true
        context.write(NIOAny(HTTPResponsePart.head(HTTPResponse(status: status, headerFields: headers))), promise: nil)
        path.accessLog.record(method: method, path: plan.uri.path, status: Int(status.code), route: plan.route.template,
                              upstream: plan.upstream.name, client: client, traceparent: trace.traceparent, logger: path.logger,
                              requestMetadata: requestMetadata, since: started, cache: headers[EdgeCache.xCache])
    }

    private func writeEnd() {
        context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil)), promise: nil)
        complete()
    }

    private func complete() {
        guard !done else { return }
        done = true
        handler?.finished(self)
    }
}
