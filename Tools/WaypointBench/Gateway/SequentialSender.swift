import NIOCore
import NIOHTTP1

/// Sends requests one after another — concurrency 1, the next only when the answer before it is complete — over a
/// fixed set of keep-alive connections to one target, taking them in turn (each is one client address, so that no
/// client goes over the gateway's per-client rate limit). Confined to its event loop; used through ``send(_:timeout:)``.
final class SequentialSender {
    /// One request's outcome: its time from being written to its answer's last byte, its status (nil: no answer).
    struct Exchange: Sendable {
        var nanoseconds: Int64
        var status: Int?
        var cacheHit: Bool
    }

    private let loop: any EventLoop
    private let connections: [BenchConnection]
    private var turn = 0
    /// The exchanges of the ``send(_:_:timeout:)`` under way.
    private var results: [Exchange] = []

    private init(target: LoadTarget, loop: any EventLoop) {
        self.loop = loop
        connections = target.sources.map { BenchConnection(target: target, source: $0, loop: loop) }
    }

    /// A sender for `target` on `loop`, its connections opened.
    static func open(_ target: LoadTarget, on loop: any EventLoop) async throws -> NIOLoopBound<SequentialSender> {
        try await loop.flatSubmit {
            let sender = NIOLoopBound(SequentialSender(target: target, loop: loop), eventLoop: loop)
            let opened = sender.value.connections.map { connection in
                let promise = loop.makePromise(of: Bool.self)
                connection.open { promise.succeed($0) }
                return promise.futureResult
            }
            return EventLoopFuture.whenAllSucceed(opened, on: loop).flatMapThrowing { results in
                guard results.allSatisfy({ $0 }) else { throw BenchError("could not connect to \(target.name) at \(target.address)") }
                return sender
            }
        }.get()
    }

    /// Sends `paths` in order, one at a time.
    static func send(_ sender: NIOLoopBound<SequentialSender>, _ paths: [String], timeout: TimeAmount) async throws -> [Exchange] {
        let loop = sender.eventLoop
        return try await loop.flatSubmit {
            let promise = loop.makePromise(of: [Exchange].self)
            sender.value.results = []
            sender.value.results.reserveCapacity(paths.count)
            sender.value.sendAll(paths[...], timeout: timeout, promise)
            return promise.futureResult
        }.get()
    }

    /// Closes every connection.
    static func close(_ sender: NIOLoopBound<SequentialSender>) async throws {
        let loop = sender.eventLoop
        try await loop.flatSubmit {
            sender.value.connections.forEach { $0.close() }
            return EventLoopFuture.andAllComplete(sender.value.connections.map { $0.closeFuture() }, on: loop)
        }.get()
    }

    private func sendAll(_ paths: ArraySlice<String>, timeout: TimeAmount, _ promise: EventLoopPromise<[Exchange]>) {
        guard let path = paths.first else { return promise.succeed(results) }
        let connection = connections[turn % connections.count]
        turn &+= 1
        withOpen(connection) { [self] in
            let start = NIODeadline.now()
            connection.get(path, timeout: timeout) { [self] result in
                let elapsed = (NIODeadline.now() - start).nanoseconds
                switch result {
                case .success(let answer): results.append(Exchange(nanoseconds: elapsed, status: answer.status, cacheHit: answer.cacheHit))
                case .failure: results.append(Exchange(nanoseconds: elapsed, status: nil, cacheHit: false))
                }
                sendAll(paths.dropFirst(), timeout: timeout, promise)
            }
        }
    }

    /// Runs `body` once `connection` is open (reopened if the server closed it).
    private func withOpen(_ connection: BenchConnection, _ body: @escaping () -> Void) {
        if connection.isOpen { return body() }
        connection.open { _ in body() }
    }
}
