import ArgumentParser

/// `waypoint-bench analytics`: ingest throughput and guide-summary latency of the analytics projections on SQLite.
struct AnalyticsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analytics",
        abstract: "Measures analytics ingest (events/s into the SQLite projections) and the guide summary query (p50, p99).",
        discussion: "See measureAnalytics(events:guides:) in AnalyticsBench.swift and docs/analytics.md for what is generated.")

    @Option(help: "Events ingested.")
    var events = 1_000_000

    @Option(help: "Guides the events belong to.")
    var guides = 1_000

    func run() async throws {
        _ = BenchOutput.progressLogger(label: "waypoint.bench.analytics")
        try BenchOutput.printJSON(try await measureAnalytics(events: events, guides: guides))
    }
}
