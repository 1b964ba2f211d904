import ArgumentParser

/// `waypoint-bench`: throughput benchmarks of Waypoint's building blocks, one subcommand per area.
///
/// Every subcommand prints exactly one JSON object on standard output and its progress on standard error, so
/// `waypoint-bench eventstore | jq .` works. See docs/benchmarks.md for what each figure means.
@main
struct WaypointBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waypoint-bench",
        abstract: "Measures the throughput of Waypoint's shared libraries.",
        discussion: "Prints one JSON object on stdout; progress and the run configuration go to stderr.",
        subcommands: [EventStoreBench.self, MessagingBench.self, AuthBench.self, DestinationsBench.self, ToursBench.self, CommerceBench.self, AnalyticsBench.self,
                      GatewayBench.self, RoadsBench.self, TripsBench.self, PathsBench.self, NavigationBench.self]
    )
}
