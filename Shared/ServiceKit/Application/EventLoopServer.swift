import HummingbirdCore
import Logging
import NIOCore

/// A Swift concurrency `TaskExecutor` that runs its jobs on one NIO event loop.
///
/// A task that prefers it (`withTaskExecutorPreference`) runs its nonisolated code on the loop's thread: an `await`
/// on something the loop completes — the next request part of a connection on that loop, a response from an HTTP
/// client connection on that loop — resumes in place instead of waking a thread of the cooperative pool, and the
/// writes it makes to the connection need no hop back. Code run this way must not block: it holds up every connection
/// of the loop (as blocking the two-thread cooperative pool holds up everything else).
public final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop that runs the jobs.
    public let eventLoop: any EventLoop

    /// An executor for `eventLoop`.
    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A server child channel whose connections are served on their own event loop: `Base`'s handling of a connection
/// (reading requests, the responder, writing answers) runs in a task that prefers the connection's loop
/// (``EventLoopTaskExecutor``), so a request crosses no threads between the socket and the responder and back.
///
/// Receive buffers start at ``initialReceiveBufferBytes`` (NIO's default is 2 KiB) and grow with what the connection
/// sends: a channel keeps its last receive buffer, and an idle keep-alive connection needs little.
public struct EventLoopBoundChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    public typealias Value = Base.Value
    /// The channel setup whose handling runs on the loop.
    public let base: Base
    /// Handlers put right after Hummingbird's `HTTPConnectionStateHandler` (so it sees every request and answer that
    /// passes them, for its idle timeout and graceful close), before the request loop's async channel: a handler here
    /// may answer requests itself on the event loop and pass the others on (the gateway's proxy fast path).
    public let connectionHandlers: @Sendable () -> [any ChannelHandler]

    /// The first receive buffer of a connection.
    public static var initialReceiveBufferBytes: Int { 512 }

    public init(_ base: Base, connectionHandlers: @escaping @Sendable () -> [any ChannelHandler] = { [] }) {
        self.base = base
        self.connectionHandlers = connectionHandlers
    }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let allocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: Self.initialReceiveBufferBytes, maximum: 65_536)
        do {
            try channel.syncOptions?.setOption(.recvAllocator, value: allocator)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let connectionHandlers = connectionHandlers
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let handlers = connectionHandlers()
            guard !handlers.isEmpty else { return value }
            let pipeline = channel.pipeline.syncOperations
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            var previous: any ChannelHandler = state
            for handler in handlers {
                try pipeline.addHandler(handler, position: .after(previous))
                previous = handler
            }
            return value
        }
    }

    public func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 (Hummingbird's `HTTP1Channel` with `configuration`) with each connection served on its own event loop
    /// (``EventLoopBoundChildChannel``) and each request answered in a child task of the connection's task: the server
    /// of every Waypoint process. A request the HTTP parser refuses is answered with a problem document
    /// (``MalformedRequestHandler``: 431 for oversized headers).
    ///
    /// A task keeps the memory its deepest call chain needed (its allocator's slabs) until it ends, and a connection's
    /// task lives as long as the connection. Answered in the connection's own task, every idle keep-alive connection
    /// held what its busiest request needed (~23 KiB more after one routed request through the gateway); answered in a
    /// child task, that memory goes back when the answer is written, and the connection's task stays at the depth of
    /// Hummingbird's request loop. The cost is one task per request.
    ///
    /// `connectionHandlers` go after Hummingbird's connection-state handler (see
    /// ``EventLoopBoundChildChannel/connectionHandlers``).
    public static func http1OnEventLoops(
        configuration: HTTP1Channel.Configuration = .init(),
        connectionHandlers: @escaping @Sendable () -> [any ChannelHandler] = { [] }
    ) -> HTTPServerBuilder {
        .init { responder in
            let answerInChildTask: HTTPChannelHandler.Responder = { request, writer, channel in
                let handOff = ResponseWriterHandOff(writer)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await responder(request, handOff.take(), channel) }
                    try await group.next()
                }
            }
            var configuration = configuration
            let additional = configuration.additionalChannelHandlers
            configuration.additionalChannelHandlers = { [MalformedRequestHandler()] + additional() }
            return EventLoopBoundChildChannel(HTTP1Channel(responder: answerInChildTask, configuration: configuration),
                                              connectionHandlers: connectionHandlers)
        }
    }
}

/// Carries a request's (non-copyable) `ResponseWriter` into the child task that answers: taken exactly once.
private final class ResponseWriterHandOff: @unchecked Sendable {
    // Written at creation, taken once by the one child task; the parent awaits that task and never touches it again.
    private var writer: ResponseWriter?

    init(_ writer: consuming ResponseWriter) {
        self.writer = consume writer
    }

    func take() -> ResponseWriter {
        guard let writer = writer.take() else { preconditionFailure("a response writer is taken once") }
        return writer
    }
}
