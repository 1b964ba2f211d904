import EventSourcing
import Logging
import NIOPosix
import ServiceKit

/// The five measurements of one backend, run in order against one empty store.
///
/// The three append phases fill the log that read-all and rebuild then go over, so every figure of a run comes from the
/// same database. Events are created before each timed section: the figures measure the store, not JSON encoding.
struct EventStoreBenchmark<Store: EventStore>: Sendable {
    let store: Store
    let workload: EventStoreWorkload
    let logger: Logger

    /// Runs every phase; `rebuild` rebuilds the benchmark projection over the whole log and returns the events it counted.
    func run(rebuild: @Sendable () async throws -> Int) async throws -> EventStoreFigures {
        let singleC1 = try await appendSequentially(streams: "single")
        logger.info("single c1: \(singleC1) appends")
        // The same, the caller on an event loop of NIO's shared group — where a service's request handler runs
        // (ServiceKit's `EventLoopTaskExecutor`) and where the store's append connection of that loop lives.
        let singleC1OnLoop = try await withTaskExecutorPreference(EventLoopTaskExecutor(MultiThreadedEventLoopGroup.singleton.next())) {
            try await appendSequentially(streams: "single-on-loop")
        }
        logger.info("single c1, caller on an event loop: \(singleC1OnLoop) appends")
        let singleC16 = try await appendConcurrently()
        logger.info("single c\(workload.concurrentWriters): \(singleC16) appends")
        let batch100 = try await appendBatches()
        logger.info("batch \(workload.batchSize) at c\(workload.batchWriters): \(batch100) events")
        let readAll = try await readWholeLog()
        logger.info("read-all: \(readAll) events")
        let head = Int(try await store.headPosition())
        var counted = 0
        let rebuilt = try await Throughput.measure(head) { counted = try await rebuild() }
        try check(counted == head, "the rebuilt projection counted \(counted) events of \(head)")
        logger.info("rebuild: \(rebuilt) events")
        return EventStoreFigures(
            singleC1: singleC1, singleC1OnLoop: singleC1OnLoop, singleC16: singleC16, batch100: batch100, readAll: readAll, rebuild: rebuilt)
    }

    /// One caller, one event per append, each with an exact expected version on one of a few streams named `streams-N`.
    private func appendSequentially(streams: String) async throws -> Throughput {
        let events = (0..<workload.singleAppends).map(workload.event)
        var versions = Array(repeating: Int64(0), count: workload.singleStreams)
        return try await Throughput.measure(events.count) {
            for (index, event) in events.enumerated() {
                let stream = index % versions.count
                let result = try await store.append(
                    [event], to: "\(streams)-\(stream)", expectedVersion: .exact(versions[stream]))
                versions[stream] = result.streamVersion
            }
        }
    }

    /// `concurrentWriters` tasks, each appending single events to its own stream with exact expected versions.
    private func appendConcurrently() async throws -> Throughput {
        let perWriter = workload.appendsPerWriter
        let events = (0..<workload.concurrentWriters).map { writer in
            (0..<perWriter).map { workload.event(writer * perWriter + $0) }
        }
        return try await Throughput.measure(workload.concurrentWriters * perWriter) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (writer, writerEvents) in events.enumerated() {
                    group.addTask {
                        for (version, event) in writerEvents.enumerated() {
                            try await store.append(event, to: "writer-\(writer)", expectedVersion: .exact(Int64(version)))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// `batchCount` appends of `batchSize` events, each to a new stream, spread over `batchWriters` tasks.
    private func appendBatches() async throws -> Throughput {
        let size = workload.batchSize
        let batches = (0..<workload.batchCount).map { batch in
            (0..<size).map { workload.event(batch * size + $0) }
        }
        let writers = workload.batchWriters
        return try await Throughput.measure(batches.count * size) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for batch in stride(from: writer, to: batches.count, by: writers) {
                            _ = try await store.append(batches[batch], to: "batch-\(batch)", expectedVersion: .noStream)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// The whole log from position 0 in pages, as a catching-up subscriber reads it.
    private func readWholeLog() async throws -> Throughput {
        let head = try await store.headPosition()
        var read = 0
        let throughput = try await Throughput.measure(Int(head)) {
            var position: Int64 = 0
            while true {
                let page = try await store.readAll(after: position, limit: workload.readPageSize)
                guard let last = page.last else { break }
                read += page.count
                position = last.position
            }
        }
        try check(read == head, "read-all returned \(read) events, head is \(head)")
        return throughput
    }

    private func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw BenchmarkFailure(message()) }
    }
}

/// A benchmark saw something that must not happen (a lost or duplicated event): its figures would be meaningless.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
