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
public struct EventLoopBoundChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    public typealias Value = Base.Value
    /// The channel setup whose handling runs on the loop.
    public let base: Base

    public init(_ base: Base) {
        self.base = base
    }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    public func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 (Hummingbird's `HTTP1Channel` with `configuration`) with each connection served on its own event loop
    /// (``EventLoopBoundChildChannel``): the server of every Waypoint process.
    public static func http1OnEventLoops(configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        .init { responder in
            EventLoopBoundChildChannel(HTTP1Channel(responder: responder, configuration: configuration))
        }
    }
}
