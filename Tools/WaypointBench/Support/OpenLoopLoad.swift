import NIOCore
import NIOHTTP1

/// A constant-rate, open-loop load generator (wrk2's model): request *i* is due at `start + i / rate` whatever happened
/// to the requests before it, and its latency is measured from that intended time — so a stall of the server (or of
/// the client) shows as the latency of every request that should have been sent during it, instead of silently
/// delaying their sending (coordinated omission).
///
/// Each target has a fixed set of keep-alive connections, one request at a time on each (no pipelining). A due
/// request takes the connection that has been idle the longest (so every client address sends at the same pace);
/// when every connection is busy it queues, and the wait counts in its latency. A connection that closes is reopened.
/// Everything runs on one event loop, without locks. The load keeps itself alive through its scheduled tasks and its
/// connections' callbacks until it has finished.
final class OpenLoopLoad {
    private let loop: any EventLoop
    private let targets: [LoadTarget]
    private let plan: [PlannedRequest]
    /// Time between two intended sends, in nanoseconds.
    private let intervalNanoseconds: Double
    private let timeout: TimeAmount
    private let promise: EventLoopPromise<LoadRecords>

    private var connections: [[BenchConnection]] = []
    /// Per target: indices of idle connections, longest idle first.
    private var idle: [FIFO<Int>] = []
    /// Per target: requests due while every connection was busy, oldest first.
    private var waiting: [FIFO<Int>] = []
    private var start = NIODeadline.now()
    private var next = 0
    private var records: LoadRecords
    private var completed = 0
    private var finished = false
    /// The task that gives up on the last answers; cancelled when they all came.
    private var deadline: Scheduled<Void>?

    /// Runs `plan` at `rate` requests per second on `loop` and returns every request's record.
    static func run(targets: [LoadTarget], plan: [PlannedRequest], rate: Double, timeout: TimeAmount,
                    on loop: any EventLoop) async throws -> LoadRecords {
        try await loop.flatSubmit {
            let promise = loop.makePromise(of: LoadRecords.self)
            OpenLoopLoad(loop: loop, targets: targets, plan: plan, rate: rate, timeout: timeout, promise: promise).open()
            return promise.futureResult
        }.get()
    }

    private init(loop: any EventLoop, targets: [LoadTarget], plan: [PlannedRequest], rate: Double, timeout: TimeAmount,
                 promise: EventLoopPromise<LoadRecords>) {
        self.loop = loop
        self.targets = targets
        self.plan = plan
        intervalNanoseconds = 1e9 / rate
        self.timeout = timeout
        self.promise = promise
        records = LoadRecords(plan: plan)
        idle = targets.map { _ in FIFO() }
        waiting = targets.map { _ in FIFO() }
    }

    /// Connections opened at once: a listener's accept backlog (Hummingbird's default is 256) must not overflow when
    /// thousands are opened, or the refused SYNs wait for a retransmission.
    static let parallelOpens = 128

    /// Opens every connection, at most ``parallelOpens`` at a time, then starts the clock.
    private func open() {
        connections = targets.map { target in target.sources.map { BenchConnection(target: target, source: $0, loop: loop) } }
        var queue = FIFO<(Int, Int)>()
        for (t, list) in connections.enumerated() {
            for c in list.indices { queue.push((t, c)) }
        }
        var pending = connections.reduce(0) { $0 + $1.count }
        func openNext() {
            guard let (t, c) = queue.pop() else { return }
            let connection = connections[t][c]
            connection.onClose = { [self] in reopen(t, c) }
            connection.open { [self] opened in
                if opened { idle[t].push(c) } else { records.connectFailures += 1 }
                pending -= 1
                if pending == 0 { begin() } else { openNext() }
            }
        }
        for _ in 0..<min(Self.parallelOpens, pending) { openNext() }
    }

    private func begin() {
        if let empty = targets.indices.first(where: { idle[$0].isEmpty }) {
            promise.fail(BenchError("could not connect to \(targets[empty].name) at \(targets[empty].address)"))
            return
        }
        start = .now() + .milliseconds(20)
        records.startedAt = start
        loop.assumeIsolated().scheduleTask(deadline: start) { self.tick() }
    }

    private func intended(_ index: Int) -> NIODeadline {
        start + .nanoseconds(Int64((Double(index) * intervalNanoseconds).rounded()))
    }

    /// Sends every request that is due, then sleeps until the next one is.
    private func tick() {
        let now = NIODeadline.now()
        while next < plan.count, intended(next) <= now {
            dispatch(next)
            next += 1
        }
        if next < plan.count {
            loop.assumeIsolated().scheduleTask(deadline: intended(next)) { self.tick() }
        } else {
            records.generatedAt = now
            // Whatever has no answer by then is a timeout: it was queued for longer than the request timeout.
            deadline = loop.assumeIsolated().scheduleTask(in: timeout + .seconds(5)) { self.giveUp() }
        }
    }

    private func dispatch(_ index: Int) {
        let t = plan[index].target
        if let c = takeIdle(t) { send(index, on: c) } else { records.queued += 1; waiting[t].push(index) }
    }

    private func takeIdle(_ t: Int) -> Int? {
        while let c = idle[t].pop() {
            if connections[t][c].isOpen { return c }
        }
        return nil
    }

    private func send(_ index: Int, on c: Int) {
        let t = plan[index].target
        let now = NIODeadline.now()
        records.sendLagNanoseconds[index] = max(0, (now - intended(index)).nanoseconds)
        let request = plan[index]
        connections[t][c].send(request.method, request.path, body: request.body, timeout: timeout) { [self] result in
            complete(index, result)
            if !finished, connections[t][c].isOpen { release(c, of: t) }
        }
    }

    /// A connection is free again: it takes the oldest waiting request, or goes to the back of the idle queue.
    private func release(_ c: Int, of t: Int) {
        if let index = waiting[t].pop() { send(index, on: c) } else { idle[t].push(c) }
    }

    private func reopen(_ t: Int, _ c: Int) {
        guard !finished else { return }
        records.reconnects += 1
        connections[t][c].open { [self] opened in
            if opened {
                release(c, of: t)
            } else {
                loop.assumeIsolated().scheduleTask(in: .milliseconds(100)) { self.reopen(t, c) }
            }
        }
    }

    private func complete(_ index: Int, _ result: Result<ExchangeResponse, ExchangeFailure>) {
        guard !finished, records.outcomes[index] == .pending else { return }
        records.latencyNanoseconds[index] = (NIODeadline.now() - intended(index)).nanoseconds
        switch result {
        case .success(let response):
            records.outcomes[index] = .answered(status: response.status)
            records.cacheHit[index] = response.cacheHit
            records.bodyBytes += response.bodyBytes
            if !response.errorBody.isEmpty { records.errorBodies[index] = response.errorBody }
        case .failure(let failure):
            records.outcomes[index] = failure == .timeout ? .timedOut : .connectionFailed
        }
        completed += 1
        if completed == plan.count, next == plan.count { finish() }
    }

    private func giveUp() {
        guard !finished else { return }
        let now = NIODeadline.now()
        for index in plan.indices where records.outcomes[index] == .pending {
            records.outcomes[index] = .timedOut
            records.latencyNanoseconds[index] = (now - intended(index)).nanoseconds
        }
        finish()
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        deadline?.cancel()
        records.finishedAt = .now()
        let all = connections.flatMap { $0 }
        for connection in all { connection.close() }
        let closed = all.map { $0.closeFuture() }
        let records = self.records
        EventLoopFuture.andAllComplete(closed, on: loop).assumeIsolated().whenComplete { _ in
            // The connections' callbacks hold this load: dropping them ends the cycle.
            self.connections = []
            self.promise.succeed(records)
        }
    }
}

/// A first-in, first-out queue with O(1) push and pop (the popped prefix is dropped once it outweighs the rest).
struct FIFO<Element> {
    private var items: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }

    mutating func push(_ item: Element) {
        items.append(item)
    }

    mutating func pop() -> Element? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head > 1_024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }
}
