import NIOCore

/// The idle-connections phase: many keep-alive connections, each sending one request and then nothing, held open; then
/// which of them are still open, and whether a sample of them still answers a second request. Confined to one event
/// loop; the async functions hop onto it.
final class IdleConnectionsProbe {
    /// How the opening went.
    struct Opened: Sendable {
        var attempted = 0
        /// Connections whose first request was answered with a 2xx.
        var served = 0
        /// Failures by kind (`connect`, `status 429`, `timeout`, …).
        var failures: [String: Int] = [:]
    }

    /// What was still there after the hold.
    struct Checked: Sendable {
        /// Served connections still open.
        var open = 0
        var sampled = 0
        /// Sampled connections whose second request was answered with a 2xx.
        var sampleAnswered = 0

        /// Connections held: still open, less the sampled ones that no longer answered.
        var held: Int { open - (sampled - sampleAnswered) }
    }

    private let loop: any EventLoop
    private let target: LoadTarget
    private let paths: [String]
    private let timeout: TimeAmount
    private var connections: [BenchConnection] = []
    private var served: [Bool] = []

    private init(loop: any EventLoop, target: LoadTarget, paths: [String], timeout: TimeAmount) {
        self.loop = loop
        self.target = target
        self.paths = paths
        self.timeout = timeout
    }

    /// A probe of `target` (one connection per source address), requesting `paths` in turn.
    static func make(target: LoadTarget, paths: [String], timeout: TimeAmount, on loop: any EventLoop) async throws
        -> NIOLoopBound<IdleConnectionsProbe> {
        try await loop.submit {
            NIOLoopBound(IdleConnectionsProbe(loop: loop, target: target, paths: paths, timeout: timeout), eventLoop: loop)
        }.get()
    }

    /// Opens every connection, at most `parallel` connecting or awaiting their first answer at once.
    static func open(_ probe: NIOLoopBound<IdleConnectionsProbe>, parallel: Int) async throws -> Opened {
        try await probe.eventLoop.flatSubmit { probe.value.openAll(parallel: parallel) }.get()
    }

    /// Counts the open connections and sends a second request on `sample` of them, spread evenly.
    static func check(_ probe: NIOLoopBound<IdleConnectionsProbe>, sample: Int) async throws -> Checked {
        try await probe.eventLoop.flatSubmit { probe.value.check(sample: sample) }.get()
    }

    /// Closes every connection and waits until they are closed.
    static func close(_ probe: NIOLoopBound<IdleConnectionsProbe>) async throws {
        try await probe.eventLoop.flatSubmit { probe.value.closeAll() }.get()
    }

    private func openAll(parallel: Int) -> EventLoopFuture<Opened> {
        let promise = loop.makePromise(of: Opened.self)
        connections = target.sources.map { BenchConnection(target: target, source: $0, loop: loop) }
        served = Array(repeating: false, count: connections.count)
        var opened = Opened(attempted: connections.count)
        var next = 0, active = 0
        func failed(_ kind: String) { opened.failures[kind, default: 0] += 1 }
        func startNext() {
            guard next < connections.count else {
                if active == 0 { promise.succeed(opened) }
                return
            }
            let index = next
            next += 1
            active += 1
            let connection = connections[index]
            connection.open { ok in
                guard ok else {
                    failed("connect")
                    active -= 1
                    // Later, not now: a connect that fails at once (no file descriptor left) completes synchronously,
                    // and thousands of them must not nest on the stack.
                    return self.loop.assumeIsolated().execute { startNext() }
                }
                connection.get(self.paths[index % self.paths.count], timeout: self.timeout) { result in
                    switch result {
                    case .success(let response) where (200..<300).contains(response.status):
                        self.served[index] = true
                        opened.served += 1
                    case .success(let response): failed("status \(response.status)")
                    case .failure(let failure): failed(failure == .timeout ? "timeout" : "connection")
                    }
                    active -= 1
                    self.loop.assumeIsolated().execute { startNext() }
                }
            }
        }
        for _ in 0..<min(parallel, connections.count) { startNext() }
        if connections.isEmpty { promise.succeed(opened) }
        return promise.futureResult
    }

    private func check(sample: Int) -> EventLoopFuture<Checked> {
        let open = connections.indices.filter { served[$0] && connections[$0].isOpen }
        var checked = Checked(open: open.count)
        let step = max(1, open.count / max(1, sample))
        let sampled = stride(from: 0, to: open.count, by: step).prefix(sample).map { open[$0] }
        checked.sampled = sampled.count
        let promise = loop.makePromise(of: Checked.self)
        var pending = sampled.count
        if pending == 0 { promise.succeed(checked) }
        for index in sampled {
            connections[index].get(paths[(index + 1) % paths.count], timeout: timeout) { result in
                if case .success(let response) = result, (200..<300).contains(response.status) { checked.sampleAnswered += 1 }
                pending -= 1
                if pending == 0 { promise.succeed(checked) }
            }
        }
        return promise.futureResult
    }

    private func closeAll() -> EventLoopFuture<Void> {
        for connection in connections { connection.close() }
        let closed = connections.map { $0.closeFuture() }
        return EventLoopFuture.andAllComplete(closed, on: loop).assumeIsolated().map { self.connections = [] }.nonisolated()
    }
}
