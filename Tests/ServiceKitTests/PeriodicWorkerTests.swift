import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import Synchronization
import Testing

@Suite("Periodic workers")
struct PeriodicWorkerTests {
    /// How many rounds ran, and the log lines the worker wrote. Tests await rounds (``rounds(atLeast:)``) instead of
    /// polling against a clock: in the full parallel run on 2 cores, CPU-bound suites can hold both threads of the
    /// cooperative pool for over a minute, and a worker whose 20 ms rounds are starved meanwhile is not wrong.
    final class Record: Sendable {
        private struct State {
            var rounds = 0
            var lines: [String] = []
            var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }

        private let state = Mutex(State())

        /// Counts a round; returns its number (1 for the first).
        @discardableResult func round() -> Int {
            let (number, ready) = state.withLock { state -> (Int, [CheckedContinuation<Void, Never>]) in
                state.rounds += 1
                let ready = state.waiters.filter { $0.count <= state.rounds }.map(\.continuation)
                state.waiters.removeAll { $0.count <= state.rounds }
                return (state.rounds, ready)
            }
            for continuation in ready { continuation.resume() }
            return number
        }

        /// Returns once `count` rounds have run.
        func rounds(atLeast count: Int) async {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state -> Bool in
                    guard state.rounds < count else { return true }
                    state.waiters.append((count, continuation))
                    return false
                }
                if done { continuation.resume() }
            }
        }

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

    /// Runs `worker` in a task, calls `body`, then cancels the task and waits for the worker to end.
    static func running(_ worker: PeriodicWorker, _ body: () async throws -> Void) async throws {
        let task = Task { try await worker.run() }
        try await body()
        task.cancel()
        try await task.value
    }

    @Test("rounds run one interval apart, the first at once")
    func roundsRun() async throws {
        let record = Record()
        let worker = PeriodicWorker("test", every: .milliseconds(20), logger: record.logger) { record.round() }
        try await Self.running(worker) {
            await record.rounds(atLeast: 3)
        }
        #expect(record.lines.isEmpty)
    }

    @Test("without an immediate first round, the first runs one interval after the start")
    func delayedFirstRound() async throws {
        let record = Record()
        let immediate = PeriodicWorker("test", every: .seconds(3600), logger: record.logger) { record.round() }
        try await Self.running(immediate) {
            await record.rounds(atLeast: 1)
        }
        let delayed = PeriodicWorker("test", every: .seconds(3600), immediately: false, logger: record.logger) { record.round() }
        try await Self.running(delayed) {
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
        try await Self.running(worker) {
            try await Task.sleep(for: .milliseconds(200))
            #expect(record.rounds == 0)
            live.withLock { $0 = true }
            await record.rounds(atLeast: 1)
        }
    }

    @Test("a failing round is logged at error with the worker's name and the error, and the next round runs")
    func failedRoundIsLogged() async throws {
        let record = Record()
        let worker = PeriodicWorker("bundle publishing", every: .milliseconds(20), logger: record.logger) {
            if record.round() == 1 { throw RoundFailed() }
        }
        try await Self.running(worker) {
            await record.rounds(atLeast: 3)
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

    /// "Promptly" without timing the machine: the round sleeps an hour, so only cancellation can end it within the
    /// test's time limit.
    @Test("cancelling the task ends a round in flight promptly, and nothing is logged", .timeLimit(.minutes(10)))
    func cancellationEndsIt() async throws {
        let record = Record()
        let worker = PeriodicWorker("test", every: .milliseconds(20), logger: record.logger) {
            record.round()
            try await Task.sleep(for: .seconds(3600))
        }
        try await Self.running(worker) {
            await record.rounds(atLeast: 1)
        }
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

    /// The wait and the round each take an hour unless the shutdown ends them within the test's time limit.
    @Test("graceful shutdown ends the wait and a round in flight promptly", .timeLimit(.minutes(10)))
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
            await record.rounds(atLeast: 1)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(record.rounds == 1 && record.lines.isEmpty)
    }
}
