import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// One SMTP reply: a three-digit code and its text lines (several for `250-…` multi-line replies).
struct SMTPReply: Sendable, Hashable {
    let code: Int
    let lines: [String]

    /// The text of all lines, joined with spaces.
    var text: String { lines.joined(separator: " ") }
}

/// An SMTP client connection: writes commands, reads whole replies, upgrades to TLS after `STARTTLS`.
///
/// All state lives in a ``SMTPReplyHandler`` on the channel's event loop; this wrapper is the async face.
struct SMTPConnection: Sendable {
    let channel: any Channel
    /// The first failure the reply handler recorded. Kept outside the pipeline so that it is still known
    /// after the channel closed and removed its handlers (a timeout or a server hang-up between commands).
    let failures: SMTPFailureRecord

    /// Connects to `host:port`, starting TLS at once when `tls` is given (implicit TLS).
    static func connect(
        host: String,
        port: Int,
        tls: NIOSSLContext?,
        timeout: TimeAmount
    ) async throws(EmailError) -> SMTPConnection {
        let serverHostname = serverHostname(for: host)
        let failures = SMTPFailureRecord()
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
                    }
                    try channel.pipeline.syncOperations.addHandler(SMTPReplyHandler(failures: failures))
                }
            }
        do {
            return SMTPConnection(channel: try await bootstrap.connect(host: host, port: port).get(), failures: failures)
        } catch {
            throw .connection("cannot connect to \(host):\(port): \(error)")
        }
    }

    /// The SNI / certificate host name: `nil` for IP literals, which SNI does not allow.
    static func serverHostname(for host: String) -> String? {
        (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
    }

    /// The next complete reply from the server.
    func readReply() async throws -> SMTPReply {
        let channel = channel
        let failures = failures
        return try await channel.eventLoop.flatSubmit {
            do {
                return try channel.pipeline.syncOperations.handler(type: SMTPReplyHandler.self).nextReply(on: channel.eventLoop)
            } catch {
                return channel.eventLoop.makeFailedFuture(failures.first ?? EmailError.connection("connection closed"))
            }
        }.get()
    }

    /// Sends raw bytes.
    func write(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
    }

    /// Sends `line` (a command without CRLF) and reads the reply.
    func command(_ line: String) async throws -> SMTPReply {
        try await write(Array("\(line)\r\n".utf8))
        return try await readReply()
    }

    /// Puts TLS under the SMTP handler after the server's `220` to `STARTTLS`.
    ///
    /// Anything the server sent after that reply arrived in plain text and could have been injected by a
    /// man in the middle (CVE-2011-0411 class): it is refused rather than read as part of the TLS session.
    func startTLS(context: NIOSSLContext, host: String) async throws {
        let channel = channel
        let serverHostname = Self.serverHostname(for: host)
        try await channel.eventLoop.submit {
            let handler = try channel.pipeline.syncOperations.handler(type: SMTPReplyHandler.self)
            guard !handler.hasUnreadInput else {
                throw EmailError.connection("server sent data after its STARTTLS reply")
            }
            let tls = try NIOSSLClientHandler(context: context, serverHostname: serverHostname)
            try channel.pipeline.syncOperations.addHandler(tls, position: .first)
        }.get()
    }

    /// Fails every pending and future read with `error` and closes the connection after `delay`.
    func failAfter(_ delay: TimeAmount, with error: EmailError) -> Scheduled<Void> {
        let channel = channel
        return channel.eventLoop.scheduleTask(in: delay) {
            try? channel.pipeline.syncOperations.handler(type: SMTPReplyHandler.self).fail(error)
            channel.close(promise: nil)
        }
    }

    /// The first failure the connection recorded (closed, protocol error, timeout), if any.
    func recordedFailure() -> EmailError? {
        failures.first
    }

    /// Closes the connection (idempotent).
    func close() async {
        try? await channel.close().get()
    }
}

/// Splits the server's bytes into SMTP replies (RFC 5321 §4.2) and hands them to waiting readers in order.
final class SMTPReplyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    /// Longest reply line accepted (RFC 5321 allows 512; servers exceed it in EHLO lists).
    static let maximumLineLength = 4096
    /// Most lines in one reply.
    static let maximumLines = 256

    private var buffer = ByteBuffer()
    private var partial: (code: Int, lines: [String])?
    private var replies = CircularBuffer<SMTPReply>()
    private var waiters = CircularBuffer<EventLoopPromise<SMTPReply>>()
    /// The first failure; later reads fail with it.
    private(set) var failure: EmailError?
    /// Where the first failure is published for readers that find the handler gone.
    private let failures: SMTPFailureRecord

    init(failures: SMTPFailureRecord) {
        self.failures = failures
    }

    /// Whether bytes or replies arrived that nobody has read yet.
    var hasUnreadInput: Bool { buffer.readableBytes > 0 || partial != nil || !replies.isEmpty }

    /// The next reply: one already received, or a future one.
    func nextReply(on eventLoop: any EventLoop) -> EventLoopFuture<SMTPReply> {
        if let reply = replies.popFirst() { return eventLoop.makeSucceededFuture(reply) }
        if let failure { return eventLoop.makeFailedFuture(failure) }
        let promise = eventLoop.makePromise(of: SMTPReply.self)
        waiters.append(promise)
        return promise.futureResult
    }

    /// Records `error` (unless a failure is already recorded) and fails all waiting reads.
    func fail(_ error: EmailError) {
        guard failure == nil else { return }
        failure = error
        failures.record(error)
        while let waiter = waiters.popFirst() { waiter.fail(error) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = Self.unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        while failure == nil, let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - buffer.readableBytesView.startIndex + 1
            guard let line = buffer.readBytes(length: length) else { break }
            parse(line.last == UInt8(ascii: "\n") ? line.dropLast() : line[...])
        }
        if buffer.readableBytes > Self.maximumLineLength { protocolError("reply line too long") }
        buffer.discardReadBytes()
        if failure != nil { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.connection("server closed the connection"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(.connection(String(describing: error)))
        context.close(promise: nil)
    }

    /// Parses one line without its LF: `NNN-text` continues a reply, `NNN text` or `NNN` ends it.
    private func parse(_ rawLine: ArraySlice<UInt8>) {
        let line = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
        let bytes = Array(line)
        guard bytes.count >= 3, (UInt8(ascii: "2")...UInt8(ascii: "5")).contains(bytes[0]),
            bytes[1...2].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return protocolError("malformed reply line") }
        let code = bytes[0...2].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        let separator = bytes.count > 3 ? bytes[3] : UInt8(ascii: " ")
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else { return protocolError("malformed reply line") }
        let text = bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : ""

        var current = partial ?? (code, [])
        guard current.code == code else { return protocolError("reply lines with different codes") }
        current.lines.append(text)
        guard current.lines.count <= Self.maximumLines else { return protocolError("reply too long") }
        if separator == UInt8(ascii: "-") {
            partial = current
            return
        }
        partial = nil
        let reply = SMTPReply(code: current.code, lines: current.lines)
        if let waiter = waiters.popFirst() {
            waiter.succeed(reply)
        } else {
            replies.append(reply)
        }
    }

    private func protocolError(_ reason: String) {
        fail(.connection("SMTP protocol error: \(reason)"))
    }
}

/// The first failure of one SMTP connection, readable from any thread.
final class SMTPFailureRecord: Sendable {
    private let value = Mutex<EmailError?>(nil)

    /// The first recorded failure, if any.
    var first: EmailError? { value.withLock { $0 } }

    /// Records `error` unless a failure is already recorded.
    func record(_ error: EmailError) {
        value.withLock { if $0 == nil { $0 = error } }
    }
}
