import NIOCore
import NIOHTTP1

/// What the bench keeps of an answer: its status, whether the gateway's cache served it, and its size.
struct ExchangeResponse: Sendable {
    var status: Int
    /// `X-Cache: hit` (the gateway answered from its cache).
    var cacheHit: Bool
    var bodyBytes = 0
    /// The start of the body of an error answer (status 400 or more; up to ``errorBodyLimit`` bytes), to tell the
    /// problem codes apart.
    var errorBody = ""

    static let errorBodyLimit = 512
}

/// Why an exchange produced no answer.
enum ExchangeFailure: Error, Sendable {
    /// The connection could not be opened, was reset or closed before the answer was complete.
    case connection
    /// No complete answer within the request timeout (the connection is closed: a late answer would be read as the
    /// next request's).
    case timeout
}

/// One request–answer exchange at a time on an HTTP/1.1 keep-alive connection, without pipelining. Confined to the
/// channel's event loop, like every handler.
final class HTTPExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// `X-Cache`, set by the gateway on every answer of a cacheable route.
    private static let xCache = "X-Cache"

    private var context: ChannelHandlerContext?
    private var response: ExchangeResponse?
    private var completion: ((Result<ExchangeResponse, ExchangeFailure>) -> Void)?
    /// Called once when the connection closes, whoever closed it.
    var onClose: (() -> Void)?

    /// Set once the connection is being closed by this side: it must not take another request even while the
    /// channel still reports itself active.
    private(set) var isClosing = false

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Sends `head` and `body` (none: a request without body); `completion` runs on the event loop with the answer or
    /// the failure.
    func send(_ head: HTTPRequestHead, body: ByteBuffer? = nil, completion: @escaping (Result<ExchangeResponse, ExchangeFailure>) -> Void) {
        guard let context, context.channel.isActive, !isClosing, self.completion == nil else {
            completion(.failure(.connection))
            return
        }
        self.completion = completion
        response = nil
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Fails the exchange in flight with `failure` and closes the connection.
    func abort(_ failure: ExchangeFailure) {
        isClosing = true
        finish(.failure(failure))
        context?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            response = ExchangeResponse(status: Int(head.status.code), cacheHit: head.headers[Self.xCache].first == "hit")
            // `Connection: close`: the server ends the connection after this answer; it takes no further request.
            if !head.isKeepAlive { isClosing = true }
        case .body(let buffer):
            response?.bodyBytes += buffer.readableBytes
            if let status = response?.status, status >= 400, (response?.errorBody.utf8.count ?? 0) < ExchangeResponse.errorBodyLimit {
                response?.errorBody += String(buffer: buffer)
            }
        case .end:
            if let response { finish(.success(response)) }
            response = nil
            if isClosing { context.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(.connection))
        let onClose = self.onClose
        self.onClose = nil
        onClose?()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        isClosing = true
        finish(.failure(.connection))
        context.close(promise: nil)
    }

    private func finish(_ result: Result<ExchangeResponse, ExchangeFailure>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }
}
