import Contracts
import EventSourcing
import Foundation
import Kafka
import Logging
import Messaging
import NIOCore
import ServiceKit

/// One transport wired end to end in this process: a producer store, its relay or feed, a consumer into SQLite.
struct MessagingScenario {
    let name: String
    let directory: URL
    let store: SQLiteEventStore
    let recorder: LagRecorder
    /// Starts the transport's background work (relay, feed server, consumer) in `group`.
    let start: @Sendable (inout ThrowingTaskGroup<Void, any Error>) async throws -> Void
    let cleanUp: @Sendable () async -> Void

    func measure(paced: Int, rate: Int, bulk: Int) async throws -> MessagingFigures {
        defer { try? FileManager.default.removeItem(at: directory) }
        var figures = MessagingFigures(p50: 0, p99: 0, throughput: 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            try await start(&group)
            // Warm-up: the first events include connection set-up and group joins.
            try await appendBatch(100)
            try await waitForApplied(100)
            _ = recorder.takePercentiles()

            FileHandle.standardError.write(Data("\(name): \(paced) events at \(rate)/s…\n".utf8))
            let clock = ContinuousClock()
            let begin = clock.now
            for index in 0..<paced {
                try await clock.sleep(until: begin + .microseconds(Int64(index) * 1_000_000 / Int64(rate)))
                try await store.append(try NewEvent(eventType: "BenchEvent", encoding: ["i": index]), to: "bench-\(index % 64)", expectedVersion: .any)
            }
            try await waitForApplied(100 + paced)
            (figures.p50, figures.p99) = recorder.takePercentiles()

            FileHandle.standardError.write(Data("\(name): \(bulk) events at full speed…\n".utf8))
            let appliedBefore = recorder.applied
            let bulkStart = clock.now
            for _ in 0..<(bulk / 100) { try await appendBatch(100) }
            try await waitForApplied(appliedBefore + bulk / 100 * 100)
            let seconds = (clock.now - bulkStart).seconds
            figures.throughput = Double(bulk / 100 * 100) / seconds
            group.cancelAll()
        }
        await cleanUp()
        return figures
    }

    private func appendBatch(_ count: Int) async throws {
        let events = try (0..<count).map { try NewEvent(eventType: "BenchEvent", encoding: ["i": $0]) }
        _ = try await store.append(events, to: "bulk-\(UUID.v4().uuidString.prefix(8))", expectedVersion: .any)
    }

    private func waitForApplied(_ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(300)
        while recorder.applied < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { timeInterval }
}
