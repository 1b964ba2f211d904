import AsyncAlgorithms
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceKit

/// Where a plain-HTTP upstream is, parsed once from its base URL (no `URL` per request).
struct UpstreamTarget: Sendable {
    /// Host name or address literal, e.g. `127.0.0.1`.
    let host: String
    let port: Int
    /// The `Host` field sent upstream: the host, with the port when it is not 80 (what AsyncHTTPClient sent).
    let hostHeader: String
    /// The base URL's path without a trailing slash (usually empty), put before every request's target.
    let pathPrefix: String
    /// The address, when the host is an address literal (no resolver per connection).
    let address: SocketAddress?

    /// The target of `baseURL`, or `nil` when it is not a plain `http` URL (`https` upstreams stay on AsyncHTTPClient).
    init?(baseURL: URL) {
        guard baseURL.scheme?.lowercased() == "http", var host = baseURL.host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = baseURL.port ?? 80
        self.host = host
        self.port = port
        let literal = host.contains(":") ? "[\(host)]" : host
        hostHeader = port == 80 ? literal : "\(literal):\(port)"
        var path = baseURL.path
        while path.hasSuffix("/") { path.removeLast() }
        pathPrefix = path
        address = try? SocketAddress(ipAddress: host, port: port)
    }
}

/// What the upstream client needs to know about one request.
struct UpstreamRequest: Sendable {
    /// Method, target (path and query on the upstream) and the fields to send, framing fields included.
    var head: HTTPRequestHead
    /// The client's body, through the relay (``RequestBodyRelay/upstreamBody``); `nil` for a request without one.
    var body: AsyncThrowingChannel<ByteBuffer, any Error>?
    /// A body the gateway already holds whole (the fast path's small bodies): written with the head, in one flush.
    /// Only without ``body``.
    var wholeBody: ByteBuffer? = nil
    /// Whether the relay has been finished (its channel then ends early: the upload is cut, not complete). It reads
    /// the relay without keeping it alive, as the old HTTP client held only its channel.
    var uploadCut: @Sendable () -> Bool = { false }
    /// The body's declared length, when known.
    var contentLength: Int?
    /// A small answer of declared length is read whole before it is returned (``UpstreamBody/buffered(_:)``).
    var readSmallBodyWhole: Bool
    /// Safe to send again on a fresh connection when a reused one turned out to be closed before any answer came:
    /// idempotent and without a body. (A request of ``wholeBody`` is also sent again when the connection closed while
    /// it was being written, as one without a body is: nothing of it reached the upstream's application.)
    var replayable: Bool
}

/// The answer's head and its body (read whole, broken off, or streaming).
struct UpstreamResponse: Sendable {
    var head: HTTPResponseHead
    var body: UpstreamBody
}

/// Why the gateway's own upstream client produced no answer (``UpstreamFailure`` classifies these).
enum UpstreamClientError: Error, Equatable, CustomStringConvertible {
    /// The upstream was silent for its timeout before the answer's head or between body bytes.
    case readTimeout
    /// No connection of the pool became free within the upstream's timeout (all 64 busy).
    case poolTimeout
    /// The connection closed before the answer was complete.
    case closedBeforeAnswer
    /// The answer was not HTTP/1.1 the gateway can pass on (a protocol switch, an answer before any request).
    case invalidAnswer
    /// The pool is shut down.
    case shutDown
    /// The client's body ended before its declared `Content-Length` (AsyncHTTPClient's `bodyLengthMismatch`).
    case requestBodyIncomplete

    var description: String {
        switch self {
        case .readTimeout: "upstream read timeout"
        case .poolTimeout: "no upstream connection free within the timeout"
        case .closedBeforeAnswer: "upstream connection closed before the answer was complete"
        case .invalidAnswer: "invalid upstream answer"
        case .shutDown: "upstream client shut down"
        case .requestBodyIncomplete: "the request body ended before its declared length"
        }
    }
}

/// The gateway's upstream client for one plain-HTTP upstream: one ``UpstreamConnectionPool`` per event loop of the
/// server's group. A request made on a loop of the group (ServiceKit's event-loop server runs each request's task on
/// its connection's loop) uses that loop's pool, so the upstream connection is on the caller's thread: no hop.
final class UpstreamConnections: Sendable {
    let target: UpstreamTarget
    private let pools: [ObjectIdentifier: UpstreamConnectionPool]
    private let fallback: UpstreamConnectionPool

    /// - Parameters:
    ///   - timeout: connect timeout, and the longest silence before the head and between body bytes.
    ///   - maximumPerLoop: connections per event loop; requests beyond wait (at most `timeout`) for one to be free.
    ///   - idleTimeout: an idle keep-alive connection is closed after this.
    init(target: UpstreamTarget, timeout: TimeAmount, maximumPerLoop: Int = 64, idleTimeout: TimeAmount = .seconds(60),
         group: MultiThreadedEventLoopGroup = .singleton) {
        self.target = target
        var pools: [ObjectIdentifier: UpstreamConnectionPool] = [:]
        var first: UpstreamConnectionPool?
        for loop in group.makeIterator() {
            let pool = UpstreamConnectionPool(loop: loop, target: target, timeout: timeout, maximum: maximumPerLoop,
                                              idleTimeout: idleTimeout)
            pools[ObjectIdentifier(loop)] = pool
            if first == nil { first = pool }
        }
        self.pools = pools
        fallback = first!
    }

    /// The pool of the caller's event loop, or the first loop's for a caller on none of the group's loops.
    var current: UpstreamConnectionPool {
        MultiThreadedEventLoopGroup.currentEventLoop.flatMap { pools[ObjectIdentifier($0)] } ?? fallback
    }

    /// Every pool (tests, shutdown).
    var all: [UpstreamConnectionPool] { Array(pools.values) }

    /// The pool of `loop`.
    func pool(on loop: any EventLoop) -> UpstreamConnectionPool? { pools[ObjectIdentifier(loop)] }

    /// Sends `request` and returns the answer's head with its body (read whole or streaming).
    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        try await current.execute(request)
    }

    /// Closes every connection; waiting requests fail.
    func shutdown() async {
        for pool in pools.values { try? await pool.shutdown().get() }
    }
}

/// The keep-alive connections to one upstream on one event loop. Its state is touched only on that loop (no locks):
/// callers on the loop — the usual case — reach it directly, others through `execute`.
final class UpstreamConnectionPool: @unchecked Sendable {
    let loop: any EventLoop
    let target: UpstreamTarget
    let timeout: TimeAmount
    let maximum: Int
    let idleTimeout: TimeAmount
    /// Runs the upload of a request body on this loop.
    let executor: EventLoopTaskExecutor
    private var bootstrap: ClientBootstrap!

    // Loop-confined state.
    /// Idle connections, most recently used last (taken from the end: the warmest connection is reused first).
    private var idle: [UpstreamConnection] = []
    /// Open connections and connections being opened.
    private var open = 0
    /// The open connections, idle or busy (closed on shutdown).
    private var live: [UpstreamConnection] = []
    /// Requests waiting for a connection (all `maximum` busy).
    private var waiters = CircularBuffer<UpstreamExchange>()
    private var isShutDown = false
    private var shutdownPromise: EventLoopPromise<Void>?
    /// Counters for tests and diagnostics.
    private(set) var opened = 0
    private(set) var reused = 0

    init(loop: any EventLoop, target: UpstreamTarget, timeout: TimeAmount, maximum: Int, idleTimeout: TimeAmount) {
        self.loop = loop
        self.target = target
        self.timeout = timeout
        self.maximum = maximum
        self.idleTimeout = idleTimeout
        executor = EventLoopTaskExecutor(loop)
        bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [weak self] channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let self else { throw UpstreamClientError.shutDown }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(UpstreamConnection(pool: self))
                }
            }
    }

    /// What the pool holds now (read on the loop): open connections (busy, idle, connecting), idle ones, waiters.
    func statistics() async -> (open: Int, idle: Int, waiting: Int, opened: Int, reused: Int) {
        try! await loop.submit { (self.open, self.idle.count, self.waiters.count, self.opened, self.reused) }.get()
    }

    /// One request: a connection (idle, new, or the next freed one), the request written (its body streamed by a task
    /// on this loop), and the answer's head — with the whole body when it is small and of declared length.
    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let exchange = UpstreamExchange(request: request, pool: self)
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                if self.loop.inEventLoop {
                    exchange.continuation = continuation
                    self.start(exchange)
                } else {
                    self.loop.execute {
                        exchange.continuation = continuation
                        self.start(exchange)
                    }
                }
            }
        } onCancel: {
            if self.loop.inEventLoop { exchange.cancel() } else { self.loop.execute { exchange.cancel() } }
        }
    }

    /// Gives `exchange` a connection: an idle one, a new one below the cap, else it waits.
    func start(_ exchange: UpstreamExchange) {
        loop.preconditionInEventLoop()
        guard exchange.isWaitingForConnection else {
            // Cancelled before it got here (a cancellation that came first found no continuation to resume).
            exchange.fail(CancellationError())
            return
        }
        if isShutDown {
            exchange.fail(UpstreamClientError.shutDown)
            return
        }
        while let connection = idle.popLast() {
            guard connection.isUsable else { continue }
            reused += 1
            connection.run(exchange, reused: true)
            return
        }
        if open < maximum {
            connect(for: exchange)
        } else {
            exchange.state = .queued
            waiters.append(exchange)
            exchange.waitTimer = loop.scheduleTask(in: timeout) { [weak exchange] in
                guard let exchange, exchange.state == .queued else { return }
                self.removeWaiter(exchange)
                exchange.fail(UpstreamClientError.poolTimeout)
            }
        }
    }

    /// A fresh connection for `exchange` (the first try, or the retry after a reused connection turned out closed).
    func connect(for exchange: UpstreamExchange) {
        open += 1
        opened += 1
        exchange.state = .connecting
        let future: EventLoopFuture<any Channel> =
            if let address = target.address { bootstrap.connect(to: address) } else { bootstrap.connect(host: target.host, port: target.port) }
        future.hop(to: loop).whenComplete { result in
            switch result {
            case .success(let channel):
                guard let connection = try? channel.pipeline.syncOperations.handler(type: UpstreamConnection.self) else {
                    channel.close(promise: nil)
                    self.connectionClosed(nil)
                    exchange.fail(UpstreamClientError.closedBeforeAnswer)
                    return
                }
                if !connection.isClosed { self.live.append(connection) }
                if self.isShutDown {
                    connection.close()
                    exchange.fail(UpstreamClientError.shutDown)
                } else if exchange.state == .connecting {
                    connection.run(exchange, reused: false)
                } else {
                    self.release(connection)
                }
            case .failure(let error):
                self.open -= 1
                exchange.fail(error)
                self.serveWaiters()
            }
        }
    }

    /// A connection whose answer ended and that may carry another request.
    func release(_ connection: UpstreamConnection) {
        loop.preconditionInEventLoop()
        guard connection.isUsable else { return }
        if isShutDown {
            connection.close()
            return
        }
        while let next = waiters.popFirst() {
            next.waitTimer?.cancel()
            next.waitTimer = nil
            guard next.state == .queued else { continue }
            reused += 1
            connection.run(next, reused: true)
            return
        }
        connection.becameIdle()
        idle.append(connection)
    }

    /// A connection closed (or failed to be set up): it leaves the pool; a waiter may get a new one.
    func connectionClosed(_ connection: UpstreamConnection?) {
        loop.preconditionInEventLoop()
        open -= 1
        if let connection {
            if let index = idle.firstIndex(where: { $0 === connection }) { idle.remove(at: index) }
            if let index = live.firstIndex(where: { $0 === connection }) { live.remove(at: index) }
        }
        serveWaiters()
        if isShutDown, open == 0 {
            shutdownPromise?.succeed()
            shutdownPromise = nil
        }
    }

    /// Waiters get new connections while there is room (after closes or failed connects).
    private func serveWaiters() {
        while open < maximum, !isShutDown, let next = waiters.popFirst() {
            next.waitTimer?.cancel()
            next.waitTimer = nil
            guard next.state == .queued else { continue }
            connect(for: next)
        }
    }

    func removeWaiter(_ exchange: UpstreamExchange) {
        if let index = waiters.firstIndex(where: { $0 === exchange }) { waiters.remove(at: index) }
        exchange.waitTimer?.cancel()
        exchange.waitTimer = nil
    }

    /// Closes every connection (idle ones, and busy ones: HTTP has drained by now) and fails waiters; succeeds when all
    /// are closed.
    func shutdown() -> EventLoopFuture<Void> {
        loop.flatSubmit {
            self.isShutDown = true
            while let waiter = self.waiters.popFirst() {
                waiter.waitTimer?.cancel()
                waiter.waitTimer = nil
                if waiter.state == .queued { waiter.fail(UpstreamClientError.shutDown) }
            }
            // HTTP has drained when the gateway shuts its upstream clients down: a request still running is cut.
            self.idle.removeAll()
            for connection in self.live { connection.close() }
            if self.open == 0 { return self.loop.makeSucceededVoidFuture() }
            let promise = self.shutdownPromise ?? self.loop.makePromise()
            self.shutdownPromise = promise
            return promise.futureResult
        }
    }
}

/// Takes an upstream answer part by part, on the pool's loop (``UpstreamExchange/sink``).
protocol UpstreamAnswerSink: AnyObject {
    /// The answer's head (final: 1xx are dropped).
    func upstreamHead(_ head: HTTPResponseHead)
    /// A chunk of the body; `false` pauses reading until ``UpstreamExchange/resumeReading()``.
    func upstreamBody(_ chunk: ByteBuffer) -> Bool
    /// The answer is complete (the connection is back in its pool).
    func upstreamEnd()
    /// No answer, or the rest of one, will come: before the head (a refused connection, a timeout, …) or after it
    /// (the upstream broke off).
    func upstreamFailed(_ error: any Error)
}

/// One request's way through the pool: waiting for a connection, then on one. Touched only on the pool's loop.
final class UpstreamExchange: @unchecked Sendable {
    enum State { case new, queued, connecting, running, done }

    let request: UpstreamRequest
    let pool: UpstreamConnectionPool
    var state = State.new
    /// Resumed once: with the head (and a small body), or with the error.
    var continuation: UnsafeContinuation<UpstreamResponse, any Error>?
    /// Takes the answer part by part on the pool's loop instead of ``continuation`` (the proxy fast path): the head,
    /// the body's chunks as they are read, then the end — or the failure, once.
    private(set) var sink: (any UpstreamAnswerSink)?
    /// The sink has had its head.
    private(set) var sinkHasHead = false
    /// The sink has had its end or its failure.
    private var sinkDone = false
    var connection: UpstreamConnection?
    var waitTimer: Scheduled<Void>?
    /// Sent again once on a fresh connection already.
    var retried = false

    init(request: UpstreamRequest, pool: UpstreamConnectionPool, sink: (any UpstreamAnswerSink)? = nil) {
        self.request = request
        self.pool = pool
        self.sink = sink
    }

    var isWaitingForConnection: Bool { state == .new || state == .connecting }

    /// Nothing of the answer has reached the caller yet.
    var awaitsAnswer: Bool { continuation != nil || (sink != nil && !sinkHasHead && !sinkDone) }

    /// Passes the answer's head to the sink.
    func sinkHead(_ head: HTTPResponseHead) {
        guard let sink, !sinkDone else { return }
        sinkHasHead = true
        sink.upstreamHead(head)
    }

    /// Passes a body chunk to the sink; `false` when reading should pause (until ``resumeReading()``).
    func sinkBody(_ chunk: ByteBuffer) -> Bool {
        guard let sink, !sinkDone else { return true }
        return sink.upstreamBody(chunk)
    }

    /// Tells the sink the answer is complete.
    func sinkEnd() {
        guard let sink, !sinkDone else { return }
        sinkDone = true
        self.sink = nil
        sink.upstreamEnd()
    }

    /// The sink caught up: the connection reads on.
    func resumeReading() {
        connection?.resumeReading(for: self)
    }

    /// Hands the answer to the caller (once).
    func deliver(_ response: UpstreamResponse) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(returning: response)
    }

    /// Fails the caller (when it has no answer yet) and ends the exchange.
    func fail(_ error: any Error) {
        state = .done
        if let sink, !sinkDone {
            sinkDone = true
            self.sink = nil
            sink.upstreamFailed(error)
        }
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(throwing: error)
    }

    /// The caller's task was cancelled (its client went away): a waiting request leaves the queue, a running one's
    /// connection is closed — never returned to the pool with an answer half read.
    func cancel() {
        switch state {
        case .new, .connecting:
            fail(CancellationError())  // a connection still being opened goes idle when it is ready
        case .queued:
            pool.removeWaiter(self)
            fail(CancellationError())
        case .running:
            if continuation != nil || sink != nil { connection?.abort(self, error: CancellationError()) }
        case .done:
            break
        }
    }

    // MARK: the request body (an upload task on the pool's loop)

    /// Streams the relay's chunks upstream with back-pressure: the next chunk is taken when the connection can take it.
    func startUpload(_ body: AsyncThrowingChannel<ByteBuffer, any Error>) {
        let uploadCut = request.uploadCut
        Task(executorPreference: pool.executor) { [self] in
            do {
                for try await chunk in body {
                    try await write(chunk)
                }
                // The relay ends the channel both when the body is complete and when it is finished early (the answer
                // was written while the client was still uploading): only a complete body is ended upstream.
                onLoop { self.connection?.endUpload(self, complete: !uploadCut()) }
            } catch UploadStopped.stopped {
                // The answer ended (or failed) and the connection no longer takes the body.
            } catch {
                // The client's body failed (the body limit's 413, the client broke off): the upstream sees a broken
                // upload, the caller gets the body's error (``BodyFailure``).
                onLoop { self.connection?.abort(self, error: error) }
            }
        }
    }

    enum UploadStopped: Error { case stopped }

    private func write(_ chunk: ByteBuffer) async throws {
        if pool.loop.inEventLoop {
            guard let connection else { throw UploadStopped.stopped }
            if try connection.writeBodyPart(chunk, for: self) { return }
            try await withCheckedThrowingContinuation { continuation in
                connection.waitForWritability(self, continuation)
            }
        } else {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                pool.loop.execute {
                    guard let connection = self.connection else { return continuation.resume(throwing: UploadStopped.stopped) }
                    do {
                        if try connection.writeBodyPart(chunk, for: self) { return continuation.resume() }
                        connection.waitForWritability(self, continuation)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
    }

    private func onLoop(_ body: @escaping @Sendable () -> Void) {
        if pool.loop.inEventLoop { body() } else { pool.loop.execute(body) }
    }
}
