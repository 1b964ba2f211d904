import ArgumentParser
import Foundation
import Logging
import ReferenceData
import RoadNetwork

/// `waypoint-bench trips`: the record-trip service's figures (issue 19): map matching (time per 1-hour ride on Krems
/// and Helsinki, route mismatch on synthetic rides at σ 5, 10 and 20 m, leuvenmapmatching on the same traces), the
/// statistics of a 1-hour ride, obstacle detection on simulated rides, and the service itself through HTTP: chunked
/// ingest and finish → published event (``TripServiceBench``).
struct TripsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trips",
        abstract: "Measures record-trip: map matching against leuvenmapmatching, statistics, obstacles, ingest and finish → event.",
        discussion: """
            Synthetic rides over krems.osm.gz and helsinki.osm.pbf from --data-dir (RideSimulator: routes from the \
            router, 4–7 m/s, one fix a second, Gaussian noise). The peer runs through scripts/lib/peers/leuven_match.py \
            with the interpreter in WAYPOINT_PEERS_PYTHON; without it the peer figures are null. See \
            docs/benchmarks.md, "trips".
            """
    )

    @Option(help: "1-hour rides (3,600 fixes) timed per city.")
    var hourRides = 20

    @Option(help: "Rides (1.5–3 km, Krems) per noise σ for the route mismatch.")
    var rmfRides = 20

    @Option(help: "Of those, rides given to leuvenmapmatching per σ (it takes seconds per ride).")
    var peerRides = 5

    @Option(help: "Riders uploading a 1-hour ride at once through HTTP (ingest); each trip is then finished (finish → event).")
    var riders = 4

    @Option(help: "Which parts to run: all, matching, service (ingest and finish → event).")
    var only = "all"

    @Option(help: "Directory of the extracts (default: ../shared/data, found like the other reference data).")
    var dataDir: String?

    @Option(help: "Seed of every random choice.")
    var seed: UInt64 = 19

    func validate() throws {
        guard hourRides > 0, rmfRides > 0, peerRides >= 0, riders > 0 else {
            throw ValidationError("--hour-rides, --rmf-rides and --riders must be positive")
        }
        guard ["all", "matching", "service"].contains(only) else { throw ValidationError("--only is all, matching or service") }
    }

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.trips")
        let directory = dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? ReferenceDataDirectory.locate() ?? URL(fileURLWithPath: "../shared/data", isDirectory: true)
        let bench = MatchingBench(dataDirectory: directory, hourRides: hourRides, rmfRides: rmfRides,
                                  peerRides: min(peerRides, rmfRides), seed: seed, logger: logger)
        var figures = TripsFigures()
        if only != "service" {
            try bench.run(into: &figures)
            logger.info("statistics of a 1-hour ride")
            figures.statsMilliseconds = TripStatsFigures.measure()
            logger.info("obstacle detection on simulated rides")
            figures.obstacles = ObstacleFigures.measure()
        }
        if only != "matching" {
            logger.info("record-trip through HTTP: \(riders) riders uploading 1-hour rides, then finishing them")
            let krems = try RoadNetworkLoader.load(extracts: [directory.appendingPathComponent("krems.osm.gz").path], cacheDirectory: nil)
            let service = try await TripServiceBench(network: krems, riders: riders, seed: seed, logger: logger).run()
            figures.ingestFixesPerSecond = service.ingestFixesPerSecond
            figures.chunkMilliseconds = service.chunkMilliseconds
            figures.finishToEventMilliseconds = service.finishToEvent
        }
        try BenchOutput.printJSON(figures)
    }
}
