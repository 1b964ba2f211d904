import NIOCore
import NIOHTTP1

/// The streamed body of an upstream answer: chunks as the connection reads them, with back-pressure (the connection
/// stops reading while the consumer — the client's connection — is behind).
typealias UpstreamBodyStream = NIOThrowingAsyncSequenceProducer<
    ByteBuffer, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, UpstreamBodyStreamDelegate
>

/// Tells the connection when the consumer wants more, or stopped (dropped the stream: the client went away).
struct UpstreamBodyStreamDelegate: NIOAsyncSequenceProducerDelegate {
    let connection: UpstreamConnection
    let exchange: UpstreamExchange

    func produceMore() {
        let connection = connection, exchange = exchange
        connection.onLoop { connection.resumeReading(for: exchange) }
    }

    func didTerminate() {
        let connection = connection, exchange = exchange
        connection.onLoop { connection.streamTerminated(for: exchange) }
    }
}

/// One keep-alive HTTP/1.1 connection to an upstream: the last handler of its pipeline (after NIO's HTTP client
/// codec). It runs one ``UpstreamExchange`` at a time — writes the request, hands the answer's head (with a small body
/// read whole, or a stream) to the caller, reads the body — and then goes back to its pool, or closes when the
/// upstream said `Connection: close`, the answer was not read to its end, or anything failed.
///
/// Everything here runs on the connection's event loop, which is its pool's loop.
final class UpstreamConnection: ChannelDuplexHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    private weak var pool: UpstreamConnectionPool?
    private let loop: any EventLoop
    private var context: ChannelHandlerContext?
    private var closed = false
    /// Connected once: only then does its close leave the pool (a failed connect is counted by the pool itself).
    private var wasActive = false
    /// Since when the connection is idle in its pool.
    private var idleSince = NIODeadline.now()
    /// One timer per connection, re-armed as it fires: the upstream's silence while a request runs, the idle timeout
    /// while it waits in the pool (no timer scheduled or cancelled per request).
    private var timer: Scheduled<Void>?

    // The running exchange.
    private var exchange: UpstreamExchange?
    private var head: HTTPResponseHead?
    private var keepAlive = true
    /// The request's end is written.
    private var requestSent = false
    private var bodyBytesSent = 0
    /// The connection had carried a request before this one.
    private var reusedForExchange = false
    /// The request's head is being written: a close now means nothing of the request left.
    private var writingHead = false
    /// The last sign of life of the upstream (a read), or when the request was sent.
    private var lastActivity = NIODeadline.now()
    /// A small answer of declared length is being read whole.
    private var buffering = false
    private var buffered: ByteBuffer?
    /// The streamed answer's producer side.
    private var source: UpstreamBodyStream.Source?
    /// The consumer is behind: reads are held until it asks for more.
    private var readPaused = false
    private var readPending = false
    /// The request body's upload task waits for the socket to drain.
    private var writabilityWaiter: CheckedContinuation<Void, any Error>?
    /// The first error the pipeline reported (a malformed answer, a reset), reported when the connection closes.
    private var failure: (any Error)?

    init(pool: UpstreamConnectionPool) {
        self.pool = pool
        loop = pool.loop
    }

    /// Closed (its pool has counted it out).
    var isClosed: Bool { closed }

    /// Free to carry a request.
    var isUsable: Bool { !closed && context != nil && exchange == nil }

    func onLoop(_ body: @escaping @Sendable () -> Void) {
        if loop.inEventLoop { body() } else { loop.execute(body) }
    }

    // MARK: pipeline events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        wasActive = true
        scheduleTimer(at: .now() + period)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        timer?.cancel()
        timer = nil
        if let exchange {
            if head == nil, reusedForExchange, !exchange.retried, exchange.awaitsAnswer,
               writingHead || exchange.request.replayable {
                // A kept-alive connection the upstream had closed between requests: the request could not have been
                // processed (nothing of it left, or it may be sent again). Once more, on a fresh connection.
                exchange.retried = true
                detach(exchange)
                pool?.connect(for: exchange)
            } else {
                abort(exchange, error: failure ?? UpstreamClientError.closedBeforeAnswer)
            }
        }
        if wasActive { pool?.connectionClosed(self) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if failure == nil { failure = error }
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let exchange else {
            // An answer nobody asked for.
            if failure == nil { failure = UpstreamClientError.invalidAnswer }
            context.close(promise: nil)
            return
        }
        lastActivity = .now()
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard self.head == nil else { return abort(exchange, error: UpstreamClientError.invalidAnswer) }
            if head.status.code < 200 {
                // 1xx: NIO's decoder drops them; a protocol switch is not something the gateway passes on.
                if head.status == .switchingProtocols { abort(exchange, error: UpstreamClientError.invalidAnswer) }
                return
            }
            self.head = head
            keepAlive = head.isKeepAlive
            if exchange.sink != nil {
                exchange.sinkHead(head)
            } else if exchange.request.readSmallBodyWhole,
               let declared = head.headers.first(name: "content-length").flatMap(Int.init),
               declared >= 0, declared <= UpstreamBody.bufferedLimit {
                buffering = true
            } else {
                let stream = UpstreamBodyStream.makeSequence(
                    backPressureStrategy: .init(lowWatermark: 2, highWatermark: 8), finishOnDeinit: false,
                    delegate: UpstreamBodyStreamDelegate(connection: self, exchange: exchange))
                source = stream.source
                exchange.deliver(UpstreamResponse(head: head, body: .pooled(stream.sequence)))
            }
        case .body(let chunk):
            if exchange.sink != nil {
                if !exchange.sinkBody(chunk), self.exchange === exchange { readPaused = true }
            } else if buffering {
                if buffered == nil { buffered = chunk } else { buffered!.writeImmutableBuffer(chunk) }
            } else if let source {
                switch source.yield(chunk) {
                case .produceMore: break
                case .stopProducing: readPaused = true
                case .dropped: abort(exchange, error: CancellationError())
                }
            }
        case .end:
            guard let head else { return abort(exchange, error: UpstreamClientError.invalidAnswer) }
            // An answer that ended with the connection (no declared length: read to the close) is not reusable.
            let reusable = keepAlive && requestSent && context.channel.isActive
            let buffering = buffering, buffered = buffered, source = source
            // Detached first: finishing the stream may call back at once (the consumer was waiting) and must then find
            // the exchange over, not abort it.
            finish(exchange, reusable: reusable)
            if exchange.sink != nil {
                exchange.sinkEnd()
            } else if buffering {
                exchange.deliver(UpstreamResponse(head: head, body: .buffered(buffered ?? ByteBuffer())))
            } else {
                source?.finish()
            }
        }
    }

    func read(context: ChannelHandlerContext) {
        if readPaused {
            readPending = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let waiter = writabilityWaiter {
            writabilityWaiter = nil
            waiter.resume()
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: an exchange

    /// Writes `exchange`'s request (its body follows from the upload task) and waits for the answer.
    func run(_ exchange: UpstreamExchange, reused: Bool) {
        guard let context, !closed else {
            // Closed before the request could be written: nothing of it left.
            if reused, !exchange.retried {
                exchange.retried = true
                pool?.connect(for: exchange)
            } else {
                exchange.fail(failure ?? UpstreamClientError.closedBeforeAnswer)
            }
            return
        }
        assert(context.eventLoop === pool?.loop, "an upstream connection runs on its pool's loop")
        self.exchange = exchange
        exchange.connection = self
        exchange.state = .running
        head = nil
        keepAlive = true
        requestSent = false
        bodyBytesSent = 0
        buffering = false
        buffered = nil
        failure = nil
        reusedForExchange = reused
        writingHead = true
        context.write(wrapOutboundOut(.head(exchange.request.head)), promise: nil)
        if exchange.request.body == nil {
            if let whole = exchange.request.wholeBody, whole.readableBytes > 0 {
                bodyBytesSent = whole.readableBytes
                context.write(wrapOutboundOut(.body(.byteBuffer(whole))), promise: nil)
            }
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
            requestSent = true
            lastActivity = .now()
        }
        context.flush()
        writingHead = false
        guard self.exchange === exchange else { return }  // closed while writing: retried or failed already
        if let body = exchange.request.body { exchange.startUpload(body) }
    }

    /// One chunk of the request body; `true` when the connection can take the next at once.
    func writeBodyPart(_ chunk: ByteBuffer, for exchange: UpstreamExchange) throws -> Bool {
        guard self.exchange === exchange, !closed, !requestSent, let context else { throw UpstreamExchange.UploadStopped.stopped }
        bodyBytesSent += chunk.readableBytes
        context.write(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
        if let length = exchange.request.contentLength, bodyBytesSent >= length {
            // The declared length is complete: the request is sent, whether or not the relay's end comes first.
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
            requestSent = true
            lastActivity = .now()
        }
        context.flush()
        return context.channel.isWritable
    }

    /// Resumes `continuation` when the socket can take more (or throws when the exchange is over).
    func waitForWritability(_ exchange: UpstreamExchange, _ continuation: CheckedContinuation<Void, any Error>) {
        guard self.exchange === exchange, !closed, let context else {
            return continuation.resume(throwing: UpstreamExchange.UploadStopped.stopped)
        }
        if context.channel.isWritable { return continuation.resume() }
        writabilityWaiter = continuation
    }

    /// The relay's channel ended: the body is complete (`complete`) — its end is written — or the relay was finished
    /// early and the upload is cut: the connection cannot carry another request.
    func endUpload(_ exchange: UpstreamExchange, complete: Bool) {
        guard self.exchange === exchange, !closed, !requestSent, let context else { return }
        if let length = exchange.request.contentLength, bodyBytesSent < length {
            // The client's body ended before its declared length (it went away): the upstream must see a broken
            // upload, not wait for the rest.
            abort(exchange, error: UpstreamClientError.requestBodyIncomplete)
        } else if complete {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            requestSent = true
            lastActivity = .now()
        } else {
            abort(exchange, error: CancellationError())
        }
    }

    /// The consumer asked for more of a paused body.
    func resumeReading(for exchange: UpstreamExchange) {
        guard self.exchange === exchange, readPaused else { return }
        readPaused = false
        lastActivity = .now()
        if readPending {
            readPending = false
            context?.read()
        }
    }

    /// The consumer stopped reading the body: before its end, the connection goes (its answer is half read).
    func streamTerminated(for exchange: UpstreamExchange) {
        guard self.exchange === exchange else { return }
        abort(exchange, error: CancellationError())
    }

    /// Ends `exchange` with `error` — the caller gets it, or the part of a small body that came and the cut, or the
    /// stream fails — and closes the connection.
    func abort(_ exchange: UpstreamExchange, error: any Error) {
        guard self.exchange === exchange else { return }
        let head = head, buffering = buffering, buffered = buffered, source = source
        finish(exchange, reusable: false)  // first: the stream's termination calls back
        if let head, buffering {
            exchange.deliver(UpstreamResponse(head: head, body: .broken(buffered ?? ByteBuffer(), error)))
        } else if let source {
            source.finish(error)
        }
        exchange.fail(error)  // no-op once the head was delivered
    }

    /// The exchange is over: the connection goes back to the pool or closes.
    private func finish(_ exchange: UpstreamExchange, reusable: Bool) {
        detach(exchange)
        if reusable, !closed {
            pool?.release(self)
        } else {
            close()
        }
    }

    private func detach(_ exchange: UpstreamExchange) {
        exchange.state = .done
        exchange.connection = nil
        self.exchange = nil
        source = nil
        buffered = nil
        buffering = false
        head = nil
        if let waiter = writabilityWaiter {
            writabilityWaiter = nil
            waiter.resume(throwing: UpstreamExchange.UploadStopped.stopped)
        }
        readPaused = false
        if readPending {
            readPending = false
            context?.read()
        }
    }

    /// Back in the pool.
    func becameIdle() {
        idleSince = .now()
    }

    func close() {
        guard !closed, let context else { return }
        context.close(promise: nil)
    }

    // MARK: the timer

    private var period: TimeAmount {
        guard let pool else { return .seconds(1) }
        return min(pool.timeout, pool.idleTimeout)
    }

    private func scheduleTimer(at deadline: NIODeadline) {
        timer = loop.scheduleTask(deadline: deadline) { [weak self] in self?.timerFired() }
    }

    private func timerFired() {
        timer = nil
        guard !closed, let pool else { return }
        let now = NIODeadline.now()
        var next = now + period
        if let exchange {
            // Silence counts once the request is sent (or answered early), while the gateway waits for the upstream,
            // not while the client is behind reading the answer.
            if requestSent || head != nil, !readPaused {
                let deadline = lastActivity + pool.timeout
                if now >= deadline { return abort(exchange, error: UpstreamClientError.readTimeout) }
                next = min(next, deadline)
            }
        } else {
            let deadline = idleSince + pool.idleTimeout
            if now >= deadline { return close() }
            next = min(next, deadline)
        }
        scheduleTimer(at: next)
    }
}
