import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle

/// Runs trip analyses off the request path: at most `concurrency` at once (the analysis is CPU work: cleaning,
/// statistics, map matching, obstacle detection), one per trip however often it is asked for. A finish request
/// waits for its trip's analysis only as long as it chooses (``wait(for:upTo:)``); the analysis goes on either way.
public actor TripAnalysisQueue {
    private let commands: TripCommands
    private let concurrency: Int
    private let logger: Logger
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var inFlight: [UUID: Task<Void, Never>] = [:]

    /// A queue over `commands`, running at most `concurrency` analyses at once (default: the machine's cores).
    public init(commands: TripCommands, concurrency: Int = ProcessInfo.processInfo.activeProcessorCount, logger: Logger) {
        self.commands = commands
        self.concurrency = max(1, concurrency)
        self.logger = logger
    }

    /// Starts `trip`'s analysis unless it is running already; the task ends when it is recorded (or failed: a
    /// failure is logged, and the ``TripAnalysisWorker`` retries the trip later).
    @discardableResult
    public func submit(_ trip: UUID) -> Task<Void, Never> {
        if let task = inFlight[trip] { return task }
        let task = Task { await self.run(trip) }
        inFlight[trip] = task
        return task
    }

    /// Starts `trip`'s analysis if needed and waits until it is recorded or `timeout` passes; true when it ended in time.
    /// The analysis does not notice cancellation, so the wait races it with ``TimeLimit`` (a task group would wait for
    /// it to end past the timeout); it goes on in the background either way.
    public func wait(for trip: UUID, upTo timeout: Duration) async -> Bool {
        let task = submit(trip)
        guard timeout > .zero else { return false }
        do {
            try await TimeLimit.run(timeout, onTimeout: { CancellationError() }) { await task.value }
            return true
        } catch {
            return false
        }
    }

    /// Analyses running or waiting for a slot.
    public var pending: Int { inFlight.count }

    private func run(_ trip: UUID) async {
        await acquire()
        do {
            try await commands.analyse(trip: trip)
        } catch {
            logger.error("trip analysis failed; it is retried later", metadata: ["trip": "\(trip)", "error": "\(error)"])
        }
        release()
        inFlight[trip] = nil
    }

    private func acquire() async {
        if running < concurrency {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// Finds trips left `analysing` — a finish recorded just before a crash or a restart, an analysis that failed — and
/// hands them to the ``TripAnalysisQueue``: at start (once the `trips` read model is live) and every `interval`.
public struct TripAnalysisWorker: Service {
    let queue: TripAnalysisQueue
    let reads: any TripReadStore
    let trips: any ProjectionRunning
    let interval: Duration
    let logger: Logger

    /// The worker over the queue and the `trips` read model.
    public init(queue: TripAnalysisQueue, reads: any TripReadStore, trips: any ProjectionRunning, interval: Duration = .seconds(10),
                logger: Logger) {
        self.queue = queue
        self.reads = reads
        self.trips = trips
        self.interval = interval
        self.logger = logger
    }

    /// Runs rounds until graceful shutdown.
    public func run() async throws {
        try await PeriodicWorker("trip analysis", every: interval, immediately: true, after: [trips], logger: logger) {
            _ = try await analysePending()
        }.run()
    }

    /// One round: up to 100 pending trips handed to the queue (which runs them in turn, each once); how many.
    @discardableResult
    public func analysePending() async throws -> Int {
        let pending = try await reads.analysisPending(limit: 100)
        for trip in pending { await queue.submit(trip) }
        return pending.count
    }
}
