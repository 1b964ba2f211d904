import ArgumentParser
import EventSourcing
import Foundation
import Logging
import Messaging
import TourManagement

/// `waypoint-bench gateway`: the platform as `waypoint up --demo` runs it, plus 10,000 generated tours, measured
/// through the gateway: a mixed read load at a constant arrival rate, the gateway's overhead over a direct call, and
/// 10,000 idle keep-alive connections.
struct GatewayBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Measures the gateway: mixed reads at a fixed rate, overhead over a direct call, idle connections.",
        discussion: """
            Seeds --tours generated tours (the `tours` benchmark's catalogue) into tour-management's SQLite log in a \
            fresh data directory, starts the platform with the real launcher (`waypoint up --no-build --bin-path DIR \
            --demo`, loopback ports from a free base port), then: a warm-up; the overhead pairs (the same requests \
            directly to tour-management and through the gateway, with Cache-Control: no-cache, at low concurrency); the \
            mixed load (tour search 60 %, tour detail 30 %, destinations 10 %) from a constant-rate open-loop generator \
            measuring from each request's intended send time; the idle connections. Stops the platform with SIGINT and \
            removes the data directory (unless --keep). Needs the release products of waypoint, auth, tour-management, \
            analytics and gateway in --bin-path. See docs/benchmarks.md, `gateway`.
            """
    )

    @Option(help: "Intended arrival rate of the mixed load, requests per second.")
    var rate = 1_000

    @Option(help: "Seconds of the measured mixed load.")
    var duration = 60

    @Option(help: "Seconds of unmeasured load at --rate before it.")
    var warmup = 10

    @Option(help: "Keep-alive connections of the mixed load, each from its own loopback address (one simulated client).")
    var connections = 256

    @Option(help: "Seconds a request may wait for its answer before it counts as a timeout.")
    var timeout = 10

    @Option(help: "Requests of the overhead phase, each sent once directly and once through the gateway.")
    var overheadRequests = 2_000

    @Option(help: "Requests per second of the overhead phase (both paths together).")
    var overheadRate = 200

    @Option(help: "Idle keep-alive connections to open and hold.")
    var idleConnections = 10_000

    @Option(help: "Seconds the idle connections are held.")
    var idleHold = 10

    @Option(help: "Idle connections that send a second request after the hold.")
    var idleSample = 100

    @Option(help: "Generated tours seeded before the start (besides the demo's three).")
    var tours = 10_000

    @Option(help: "Seed of the generated tours and of the requests.")
    var seed: UInt64 = 20_261_122

    @Option(help: "Directory of the release executables (default: this executable's directory).")
    var binPath: String?

    @Option(help: "Where the temporary data directory goes (default: the system temporary directory).")
    var directory: String?

    @Option(help: "Seconds the platform has to become ready (tour-management imports the gazetteer at its first start).")
    var readyTimeout = 600

    @Option(help: "Seconds to wait for the platform to finish the work the seeded tours cause (bundles, analytics) before measuring; 0 skips.")
    var settleTimeout = 900

    @Flag(help: "Keep the data directory (its path and the launcher's log go to stderr).")
    var keep = false

    func validate() throws {
        guard rate > 0, duration > 0, warmup >= 0, connections > 0, timeout > 0, overheadRequests > 0, overheadRate > 0 else {
            throw ValidationError("--rate, --duration, --connections, --timeout and the overhead options must be positive")
        }
        guard idleConnections >= 0, idleHold >= 0, idleSample >= 0, tours > 0, readyTimeout > 0, settleTimeout >= 0 else {
            throw ValidationError("--idle-* and --settle-timeout must not be negative, --tours and --ready-timeout must be positive")
        }
        guard connections <= 64_000, idleConnections <= 640_000 else { throw ValidationError("too many connections for one client block") }
    }

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.gateway")
        let fileLimit = ProcessResources.raiseOpenFileLimit(to: idleConnections + connections + 4_096)
        logger.info("open-file limit of this process and the platform it starts: \(fileLimit)")
        let binDirectory = try locateBinDirectory()
        let (cities, _) = try Gazetteer.loadReferenceData()
        let corpus = try TourCorpus.generate(cities: cities, tours: tours, stopsPerTour: 10, seed: seed)
        logger.info("corpus: \(corpus.events.count) tours, \(corpus.stops) stops over \(corpus.destinations.count) destinations (seed \(seed))")

        let parent = directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        let dataDirectory = parent.appendingPathComponent("waypoint-bench-gateway-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        var platform: LaunchedPlatform?
        var outcome: Result<GatewayFigures, any Error>
        do {
            try await seedTourManagement(corpus, dataDirectory: dataDirectory, logger: logger)
            let basePort = try LaunchedPlatform.freeBasePort()
            logger.info("starting: \(binDirectory.path)/waypoint up --demo --base-port \(basePort) --data-dir \(dataDirectory.path)")
            platform = try LaunchedPlatform.start(binDirectory: binDirectory, dataDirectory: dataDirectory, basePort: basePort,
                                                  readyTimeoutSeconds: readyTimeout)
            outcome = .success(try await measure(platform!, workload: GatewayWorkload(corpus: corpus, cities: cities), logger: logger))
        } catch {
            outcome = .failure(error)
            if let platform { logger.error("the launcher's last lines:\n\(platform.logTail(40))") }
        }
        if let platform {
            logger.info("stopping the platform (SIGINT to the launcher, pid \(platform.launcherPid))")
            let killed = await platform.stop(grace: .seconds(60), logger: logger)
            logger.info(killed.isEmpty ? "every process stopped" : "still running after the launcher stopped, killed: \(killed.joined(separator: ", "))")
        }
        if keep {
            logger.info("kept: \(dataDirectory.path) (launcher log: \(dataDirectory.path)/launcher.log)")
        } else {
            try? FileManager.default.removeItem(at: dataDirectory)
        }
        try BenchOutput.printJSON(try outcome.get())
    }

    /// The release products: `--bin-path`, else the directory of this executable (the same scratch path's products).
    private func locateBinDirectory() throws -> URL {
        let directory = binPath.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).resolvingSymlinksInPath().deletingLastPathComponent()
        let missing = LaunchedPlatform.executables.filter {
            !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent($0).path)
        }
        guard missing.isEmpty else {
            throw BenchError("""
                \(directory.path) lacks \(missing.joined(separator: ", ")): build them first (release, same scratch path), e.g. \
                `swift build -c release --scratch-path .build-bench --product \(missing[0])` for each
                """)
        }
        return directory
    }

    /// Appends the corpus to tour-management's log where the service will open it (`TourManagementConfiguration` over
    /// the data directory), before the service first starts; the service projects it at start.
    private func seedTourManagement(_ corpus: TourCorpus, dataDirectory: URL, logger: Logger) async throws {
        let settings = try TourManagementConfiguration.fromEnvironment(["WAYPOINT_DATA_DIR": dataDirectory.path]).runtime
        var quiet = Logger(label: "waypoint.tour-management")
        quiet.logLevel = .warning
        let started = ContinuousClock.now
        try await ServiceStorage.withOpen(settings, logger: quiet) { storage in
            try await corpus.seed(into: AnyEventStore(storage.store))
        }
        logger.info("seeded \(corpus.events.count) TourPublished events into \(settings.backend) in \(secondsText(ContinuousClock.now - started)) s")
    }
}
