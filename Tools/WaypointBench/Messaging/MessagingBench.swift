import ArgumentParser
import EventSourcing
import Foundation
import Kafka
import Logging
import Messaging
import ServiceKit

/// `waypoint-bench messaging`: relay → transport → consumer projection, on Kafka (librdkafka's mock cluster over TCP)
/// and on the embedded transport (HTTP long poll), at a fixed rate and at full speed.
struct MessagingBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messaging",
        abstract: "End-to-end lag at a fixed rate and full-speed throughput through both transports.")

    @Option(help: "Events appended at the fixed rate (one per append).")
    var paced = 5_000

    @Option(help: "The fixed rate, events per second.")
    var rate = 1_000

    @Option(help: "Events for the full-speed run (appended in batches of 100 first, then drained).")
    var bulk = 50_000

    func run() async throws {
        var logger = Logger(label: "bench.messaging")
        logger.logLevel = .error
        let kafka = try await MessagingScenario.kafka(logger: logger).measure(paced: paced, rate: rate, bulk: bulk)
        let embedded = try await MessagingScenario.embedded(logger: logger).measure(paced: paced, rate: rate, bulk: bulk)
        let output: [String: Any] = ["kafka": kafka.json, "embedded": embedded.json]
        let data = try JSONSerialization.data(withJSONObject: output, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}

/// Figures of one transport.
struct MessagingFigures {
    var p50: Double
    var p99: Double
    var throughput: Double

    var json: [String: Any] {
        ["lag_ms": ["p50": (p50 * 100).rounded() / 100, "p99": (p99 * 100).rounded() / 100],
         "throughput_events_per_s": Int(throughput.rounded())]
    }
}
