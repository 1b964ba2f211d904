import Dispatch
import Foundation
import Logging
import Synchronization

/// SIGINT and SIGTERM while a benchmark has something to clean up: the cleanup runs (the platform it started is stopped
/// as at the end of a run, its data directory removed) before the process exits with 128 + the signal's number. A
/// second signal exits at once.
///
/// Without it an interrupted `waypoint-bench gateway` (Ctrl-C, `kill`) died of the signal's default action and left the
/// launcher and its seven services running on their own: idle, but using a few percent of a core beside — and skewing
/// — every measurement after it, until someone noticed them.
final class InterruptionGuard: Sendable {
    private struct State {
        var cleanup: (@Sendable () async -> Void)?
        var signalled = false
    }

    private let state = Mutex(State())
    /// The signal sources, kept alive with the guard; written only by ``trap(_:logger:)`` before it returns the guard.
    nonisolated(unsafe) private var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "waypoint.bench.interruption")

    /// Traps `signals` (their default action is ignored from now on: the guard decides) for the life of the process.
    static func trap(_ signals: [Int32] = [SIGINT, SIGTERM], logger: Logger) -> InterruptionGuard {
        let trapped = InterruptionGuard()
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: trapped.queue)
            source.setEventHandler { trapped.interrupted(by: number, logger: logger) }
            source.resume()
            trapped.sources.append(source)
        }
        return trapped
    }

    /// What an interruption does before the process exits (replacing what was set before; `nil`: nothing).
    func setCleanup(_ cleanup: (@Sendable () async -> Void)?) {
        state.withLock { $0.cleanup = cleanup }
    }

    /// Whether a signal arrived (a run that finishes meanwhile leaves the exit to the cleanup).
    var isInterrupted: Bool { state.withLock { $0.signalled } }

    private func interrupted(by number: Int32, logger: Logger) {
        let (first, cleanup) = state.withLock { state in
            defer { state.signalled = true }
            return (!state.signalled, state.cleanup)
        }
        guard first else {
            logger.warning("second signal \(number): exiting without cleaning up")
            exit(128 + number)
        }
        guard let cleanup else { exit(128 + number) }
        logger.warning("interrupted by signal \(number): cleaning up before exiting (a second signal exits at once)")
        Task {
            await cleanup()
            exit(128 + number)
        }
    }
}
