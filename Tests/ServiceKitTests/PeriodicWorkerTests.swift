import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import Synchronization
import ServiceTesting
import Testing

@Suite("Periodic workers")
struct PeriodicWorkerTests {
    /// How many rounds ran, and the log lines the worker wrote.
    final class Record: Sendable {
        private let state = Mutex<(rounds: Int, lines: [String])>((0, []))
        /// Counts a round; returns its number (1 for the first).
        @discardableResult func round() -> Int { state.withLock { $0.rounds += 1; return $0.rounds } }
        var rounds: Int { state.withLock { $0.rounds } }
        var lines: [String] { state.withLock { $0.lines } }
        var logger: Logger {
            Logger(label: "periodic-worker-tests") { label in
                JSONLogHandler(label: label, logLevel: .debug, sink: { line in self.state.withLock { $0.lines.append(line) } })
            }
        }
    }

    struct RoundFailed: Error, CustomStringConvertible {
        var description: String { "the database is away" }
    }

    /// Runs `worker` in a task, calls `body`, then cancels the task; returns how long the worker took to end.
    static func running(_ worker: PeriodicWorker, _ body: () async throws -> Void) async throws -> Duration {
        let task = Task { try await worker.run() }
        try await body()
        let cancelled = ContinuousClock.now
        task.cancel()
        try await task.value
        return ContinuousClock.now - cancelled
    }

    @Test("rounds run one interval apart, the first at once")
    func roundsRun() async throws {
        let record = Record()
        let worker = PeriodicWorker("test", every: .milliseconds(20), logger: record.logger) { record.round() }
        _ = try await Self.running(worker) {
            let reached = try await eventually { record.rounds >= 3 }
            #expect(reached)
        }
        #expect(record.lines.isEmpty)
    }

    @Test("without an immediate first round, the first runs one interval after the start")
    func delayedFirstRound() async throws {
        let record = Record()
        let immediate = PeriodicWorker("test", every: .seconds(3600), logger: record.logger) { record.round() }
        _ = try await Self.running(immediate) {
            let reached = try await eventually { record.rounds == 1 }
            #expect(reached)
        }
        let delayed = PeriodicWorker("test", every: .seconds(3600), immediately: false, logger: record.logger) { record.round() }
        _ = try await Self.running(delayed) {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(record.rounds == 1, "the delayed worker ran no round within 200 ms of an hour's interval")
    }

    @Test("no round runs until the prerequisite (a read model not yet live) is met")
    func waitsForPrerequisite() async throws {
        let record = Record()
        let live = Mutex(false)
        let worker = PeriodicWorker("test", every: .milliseconds(20), logger: record.logger, waitingFor: {
            while !live.withLock({ $0 }), !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
        }) { record.round() }
        _ = try await Self.running(worker) {
            try await Task.sleep(for: .milliseconds(200))
            #expect(record.rounds == 0)
            live.withLock { $0 = true }
            let reached = try await eventually { record.rounds >= 1 }
            #expect(reached)
        }
    }

    @Test("a failing round is logged at error with the worker's name and the error, and the next round runs")
    func failedRoundIsLogged() async throws {
        let record = Record()
        let worker = PeriodicWorker("bundle publishing", every: .milliseconds(20), logger: record.logger) {
            if record.round() == 1 { throw RoundFailed() }
        }
        _ = try await Self.running(worker) {
            let reached = try await eventually { record.rounds >= 3 }
            #expect(reached)
        }
        #expect(record.lines.count == 1)
        let line = try #require(record.lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "error")
        #expect(object["message"] as? String == "periodic work failed; retrying next round")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["worker"] as? String == "bundle publishing")
        #expect(metadata["error"] as? String == "the database is away")
    }

    @Test("cancelling the task ends a round in flight promptly, and nothing is logged")
    func cancellationEndsIt() async throws {
        let record = Record()
        let worker = PeriodicWorker("test", every: .milliseconds(20), logger: record.logger) {
            record.round()
            try await Task.sleep(for: .seconds(3600))
        }
        let ending = try await Self.running(worker) {
            let reached = try await eventually { record.rounds == 1 }
            #expect(reached)
        }
        #expect(ending < .seconds(2))
        #expect(record.rounds == 1 && record.lines.isEmpty)
    }

    @Test("a round that throws CancellationError ends the worker instead of retrying")
    func cancellationErrorEndsIt() async throws {
        let record = Record()
        let worker = PeriodicWorker("test", every: .milliseconds(20), logger: record.logger) {
            record.round()
            throw CancellationError()
        }
        try await worker.run()
        #expect(record.rounds == 1 && record.lines.isEmpty)
    }

    @Test("graceful shutdown ends the wait and a round in flight promptly")
    func gracefulShutdownEndsIt() async throws {
        let record = Record()
        let waiting = PeriodicWorker("waiting", every: .milliseconds(20), logger: record.logger, waitingFor: {
            try? await Task.sleep(for: .seconds(3600))
        }) { record.round() }
        let busy = PeriodicWorker("busy", every: .milliseconds(20), logger: record.logger) {
            record.round()
            try await Task.sleep(for: .seconds(3600))
        }
        let group = ServiceGroup(configuration: .init(services: [waiting, busy], logger: Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() }))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let reached = try await eventually { record.rounds == 1 }
            #expect(reached)
            let triggered = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            #expect(ContinuousClock.now - triggered < .seconds(2))
        }
        #expect(record.rounds == 1 && record.lines.isEmpty)
    }
}
