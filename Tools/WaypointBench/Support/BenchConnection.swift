import NIOCore
import NIOHTTP1
import NIOPosix

/// Where a connection goes and as which client: the listener, the `Host` and the extra header fields of every request,
/// and the loopback source address of each of its connections (one per connection; the gateway keys its per-client
/// rate limit on the peer address, so each address is one client).
struct LoadTarget: Sendable {
    /// `gateway` or `tour-management`, for the progress log.
    var name: String
    var address: SocketAddress
    var host: String
    /// Sent with every request, e.g. `User-Agent`, `Cache-Control: no-cache`.
    var headers: HTTPHeaders
    /// One entry per connection.
    var sources: [SocketAddress]

    /// The head of `GET path`.
    func head(_ path: String) -> HTTPRequestHead {
        head(.GET, path, bodyLength: nil)
    }

    /// The head of `method path`, with `Content-Type: application/json` and its length when it has a body.
    func head(_ method: HTTPMethod, _ path: String, bodyLength: Int?) -> HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers)
        head.headers.replaceOrAdd(name: "Host", value: host)
        if let bodyLength {
            head.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            head.headers.replaceOrAdd(name: "Content-Length", value: String(bodyLength))
        }
        return head
    }
}

/// One keep-alive connection of the bench from a chosen source address. Confined to its event loop: every method must
/// be called there.
final class BenchConnection {
    let target: LoadTarget
    let source: SocketAddress
    private let loop: any EventLoop
    private var channel: (any Channel)?
    private var handler: HTTPExchangeHandler?
    /// Called on the event loop when an open connection closes (either side).
    var onClose: (() -> Void)?

    init(target: LoadTarget, source: SocketAddress, loop: any EventLoop) {
        self.target = target
        self.source = source
        self.loop = loop
    }

    /// Whether the connection is open.
    var isOpen: Bool { channel?.isActive == true && handler?.isClosing == false }

    /// Connects (TCP_NODELAY, bound to ``source``); `done` runs on the event loop with whether it worked.
    func open(_ done: @escaping (Bool) -> Void) {
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .bind(to: source)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(HTTPExchangeHandler())
                }
            }
            .connect(to: target.address)
            .assumeIsolated()
            .whenComplete { result in
                guard case .success(let channel) = result,
                      let handler = try? channel.pipeline.syncOperations.handler(type: HTTPExchangeHandler.self)
                else {
                    done(false)
                    return
                }
                self.channel = channel
                self.handler = handler
                handler.onClose = { [weak self] in self?.onClose?() }
                done(true)
            }
    }

    /// `GET path`; `completion` runs on the event loop with the answer, or a failure after `timeout` without one.
    func get(_ path: String, timeout: TimeAmount, _ completion: @escaping (Result<ExchangeResponse, ExchangeFailure>) -> Void) {
        send(.GET, path, body: nil, timeout: timeout, completion)
    }

    /// `method path` with `body` (JSON) if any; `completion` as for ``get(_:timeout:_:)``.
    func send(_ method: HTTPMethod, _ path: String, body: ByteBuffer?, timeout: TimeAmount,
              _ completion: @escaping (Result<ExchangeResponse, ExchangeFailure>) -> Void) {
        guard let handler, isOpen else {
            completion(.failure(.connection))
            return
        }
        let timer = loop.assumeIsolated().scheduleTask(in: timeout) { [weak handler] in handler?.abort(.timeout) }
        handler.send(target.head(method, path, bodyLength: body?.readableBytes), body: body) { result in
            timer.cancel()
            completion(result)
        }
    }

    /// Closes the connection; `onClose` follows.
    func close() {
        channel?.close(promise: nil)
    }

    /// A future that completes once the connection has closed (at once when it never opened).
    func closeFuture() -> EventLoopFuture<Void> {
        channel?.closeFuture ?? loop.makeSucceededVoidFuture()
    }
}

/// Loopback source addresses for simulated clients: all of 127.0.0.0/8 reaches the loopback interface on Linux, so
/// each client can have an address of its own without any configuration.
enum LoopbackClients {
    /// `127.<block>.x.y` for client `index`: blocks keep the phases' clients apart (a client of one phase never
    /// shares its rate-limit bucket with another phase's).
    static func address(block: UInt8, client index: Int) throws -> SocketAddress {
        let high = index / 250, low = index % 250 + 1
        precondition(high < 256, "at most 64,000 clients per block")
        return try SocketAddress(ipAddress: "127.\(block).\(high).\(low)", port: 0)
    }

    /// Source addresses of `connections` connections, `perClient` connections sharing each client address.
    static func sources(block: UInt8, connections: Int, perClient: Int = 1) throws -> [SocketAddress] {
        try (0..<connections).map { try address(block: block, client: $0 / max(1, perClient)) }
    }
}
