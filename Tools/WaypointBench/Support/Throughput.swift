import Contracts
import Foundation

/// How many operations a timed section completed, and how long it took.
struct Throughput: Sendable, CustomStringConvertible {
    /// Operations (appends or events, as the benchmark defines them) completed in `duration`.
    var operations: Int
    /// Wall-clock time of the section, from `ContinuousClock`.
    var duration: Duration
    /// CPU time (user + system, all threads) the process spent in the section: near `duration` × cores means CPU-bound,
    /// far below it means the section mostly waited (on fsync, the network or a lock).
    var cpuTime: Duration

    /// The duration in seconds.
    var seconds: Double {
        duration.timeInterval
    }

    /// Operations per second.
    var perSecond: Double {
        seconds > 0 ? Double(operations) / seconds : 0
    }

    /// The figure as the JSON reports it: rounded to a whole number per second.
    var roundedPerSecond: Int { Int(perSecond.rounded()) }

    var description: String {
        let cpu = cpuTime.timeInterval
        let timing = String(format: "%.2f s (cpu %.2f s)", seconds, cpu)
        return "\(operations) in \(timing) = \(roundedPerSecond)/s"
    }

    /// Times `body`, which completes `operations` operations.
    static func measure(_ operations: Int, _ body: () async throws -> Void) async rethrows -> Throughput {
        let clock = ContinuousClock()
        let cpuStart = ProcessResources.cpuTime()
        let start = clock.now
        try await body()
        let duration = clock.now - start
        return Throughput(operations: operations, duration: duration, cpuTime: ProcessResources.cpuTime() - cpuStart)
    }
}
