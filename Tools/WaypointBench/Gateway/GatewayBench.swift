import ArgumentParser
import EventSourcing
import Foundation
import Logging
import Messaging
import TourManagement

/// `waypoint-bench gateway`: the platform as `waypoint up --demo` runs it, plus 10,000 generated tours, measured
/// through the gateway: a mixed read load at a constant arrival rate (the tours mix), the bike mix (route searches,
/// position updates of 1,000 navigation sessions, trip chunk uploads, path bbox reads; ``BikeWorkload``), the gateway's
/// overhead over a direct call, its cost per proxied request against nginx's (the peer phase, issue 23; alone with
/// `--only proxy`), and 10,000 idle keep-alive connections.
struct GatewayBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Measures the platform through the gateway: the tours and bike mixes at fixed rates, overhead over a direct call, cost against nginx, idle connections.",
        discussion: """
            Seeds --tours generated tours (the `tours` benchmark's catalogue) into tour-management's SQLite log in a \
            fresh data directory, starts the platform with the real launcher (`waypoint up --no-build --bin-path DIR \
            --demo`, loopback ports from a free base port), then: a warm-up; the overhead pairs (the same requests \
            directly to tour-management and through the gateway, with Cache-Control: no-cache, at low concurrency); the \
            peer phase (--peer-requests; 0 skips it: nginx started in front of the same tour-management, the same \
            no-cache requests directly, through the gateway and through nginx at concurrency 1, each proxy's added p50 \
            and CPU per request; --only proxy runs the platform for this phase alone); the \
            mixed load (tour search 60 %, tour detail 30 %, destinations 10 %) from a constant-rate open-loop generator \
            measuring from each request's intended send time; then the bike mix (--bike-rate; 0 skips it): riders, a \
            moderators, approved paths, a navigation session and a trip per rider made first, then route searches 20 %, \
            position updates 50 %, trip chunk uploads 2 %, path bbox reads 28 % through the gateway (after the tours mix, \
            or at the same time with --bike-with-tours); the idle connections. Stops the platform with SIGINT and \
            removes the data directory (unless --keep). Needs the release products of waypoint, auth, tour-management, \
            analytics and gateway in --bin-path, and for the bike mix path-review, navigation and record-trip. See \
            docs/benchmarks.md, `gateway`.
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

    @Option(help: "Intended arrival rate of the bike mix, requests per second over all its kinds (0: no bike mix).")
    var bikeRate = 1_000

    @Option(help: "Seconds of the measured bike mix (after --warmup seconds of it).")
    var bikeDuration = 60

    @Option(help: "Riders of the bike mix, each with a navigation session sending fixes and a trip uploading chunks.")
    var bikeSessions = 1_000

    @Option(help: "Paths drafted by the riders and approved by moderators before the bike mix (what bbox reads find).")
    var bikePaths = 300

    @Option(help: "Anonymous connections (client addresses) of the bike mix's route searches and bbox reads.")
    var bikeConnections = 128

    @Flag(help: "Run the bike mix at the same time as the tours mix instead of after it.")
    var bikeWithTours = false

    @Option(help: "Generated tours seeded before the start (besides the demo's three); default 10,000, or 1,000 with --only proxy.")
    var tours: Int?

    @Option(help: "Requests of the peer phase, each sent directly, through the gateway and through nginx (0: no peer phase).")
    var peerRequests = 5_000

    @Option(help: "Run only this phase: proxy (the peer phase: the gateway's cost per proxied request against nginx's).")
    var only: Phase?

    /// Phases `--only` can pick.
    enum Phase: String, ExpressibleByArgument, Sendable {
        case proxy
    }

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
        guard idleConnections >= 0, idleHold >= 0, idleSample >= 0, tourCount > 0, readyTimeout > 0, settleTimeout >= 0, peerRequests >= 0 else {
            throw ValidationError("--idle-*, --peer-requests and --settle-timeout must not be negative, --tours and --ready-timeout must be positive")
        }
        if only == .proxy, peerRequests == 0 { throw ValidationError("--only proxy needs --peer-requests above 0") }
        guard connections <= 64_000, idleConnections <= 640_000 else { throw ValidationError("too many connections for one client block") }
        guard bikeRate >= 0, bikeDuration > 0, bikeSessions > 0, bikePaths > 0, bikeConnections > 0 else {
            throw ValidationError("--bike-rate must not be negative; --bike-duration, --bike-sessions, --bike-paths and --bike-connections must be positive")
        }
        guard bikeSessions <= 64_000, bikeConnections <= 64_000 else { throw ValidationError("too many bike sessions or connections for one client block") }
        if bikeWithTours, bikeRate == 0 { throw ValidationError("--bike-with-tours needs a --bike-rate above 0") }
    }

    /// Whether the run has a bike mix.
    var bike: Bool { bikeRate > 0 && only == nil }

    /// Generated tours to seed.
    var tourCount: Int { tours ?? (only == .proxy ? 1_000 : 10_000) }

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.gateway")
        // Trapped before anything exists to clean up: an interrupted run stops the platform it started and removes its
        // data directory instead of leaving them behind.
        let interruption = InterruptionGuard.trap(logger: logger)
        let fileLimit = ProcessResources.raiseOpenFileLimit(to: (only == nil ? idleConnections + connections : 0) + (bike ? bikeConnections + 2 * bikeSessions : 0) + 4_096)
        logger.info("open-file limit of this process and the platform it starts: \(fileLimit)")
        let binDirectory = try locateBinDirectory()
        let (cities, _) = try Gazetteer.loadReferenceData()
        let corpus = try TourCorpus.generate(cities: cities, tours: tourCount, stopsPerTour: 10, seed: seed)
        logger.info("corpus: \(corpus.events.count) tours, \(corpus.stops) stops over \(corpus.destinations.count) destinations (seed \(seed))")

        let parent = directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        let dataDirectory = parent.appendingPathComponent("waypoint-bench-gateway-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let keep = keep
        let removeData: @Sendable () -> Void = {
            if keep {
                logger.info("kept: \(dataDirectory.path) (launcher log: \(dataDirectory.path)/launcher.log)")
            } else {
                try? FileManager.default.removeItem(at: dataDirectory)
            }
        }
        interruption.setCleanup { removeData() }
        var platform: LaunchedPlatform?
        var outcome: Result<GatewayFigures, any Error>
        do {
            try await seedTourManagement(corpus, dataDirectory: dataDirectory, logger: logger)
            let secrets = LaunchedPlatform.Secrets.random()
            var settings: [String: String] = [:]
            if bike {
                // The setup registers and signs in a thousand riders: bcrypt at auth's minimum cost (10 instead of 12)
                // makes that four times cheaper. No sign-in is part of any measured mix.
                if ProcessInfo.processInfo.environment["WAYPOINT_AUTH_BCRYPT_COST"] == nil { settings["WAYPOINT_AUTH_BCRYPT_COST"] = "10" }
                try createAdministrator(binDirectory: binDirectory, dataDirectory: dataDirectory, secrets: secrets, settings: settings, logger: logger)
            }
            let basePort = try LaunchedPlatform.freeBasePort()
            logger.info("starting: \(binDirectory.path)/waypoint up --demo --base-port \(basePort) --data-dir \(dataDirectory.path)")
            let started = try LaunchedPlatform.start(binDirectory: binDirectory, dataDirectory: dataDirectory, basePort: basePort,
                                                     readyTimeoutSeconds: readyTimeout, secrets: secrets, settings: settings)
            platform = started
            interruption.setCleanup {
                await Self.stop(started, logger: logger)
                removeData()
            }
            outcome = .success(try await measure(platform!, workload: GatewayWorkload(corpus: corpus, cities: cities), dataDirectory: dataDirectory,
                                                 logger: logger))
        } catch {
            outcome = .failure(error)
            if let platform { logger.error("the launcher's last lines:\n\(platform.logTail(40))") }
        }
        // From here on the run stops the platform itself; a signal that came first has its cleanup under way, which
        // ends the process.
        interruption.setCleanup(nil)
        while interruption.isInterrupted { try await Task.sleep(for: .seconds(60)) }
        if let platform { await Self.stop(platform, logger: logger) }
        removeData()
        try BenchOutput.printJSON(try outcome.get())
    }

    /// Stops the platform as an operator does (SIGINT to the launcher) and says whether anything had to be killed.
    private static func stop(_ platform: LaunchedPlatform, logger: Logger) async {
        logger.info("stopping the platform (SIGINT to the launcher, pid \(platform.launcherPid))")
        let killed = await platform.stop(grace: .seconds(60), logger: logger)
        logger.info(killed.isEmpty ? "every process stopped" : "still running after the launcher stopped, killed: \(killed.joined(separator: ", "))")
    }

    /// The release products: `--bin-path`, else the directory of this executable (the same scratch path's products).
    private func locateBinDirectory() throws -> URL {
        let directory = binPath.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).resolvingSymlinksInPath().deletingLastPathComponent()
        let missing = (LaunchedPlatform.executables + (bike ? LaunchedPlatform.bikeExecutables : [])).filter {
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

    /// `auth create-admin` on the data directory before the platform first starts, with the secrets the services will
    /// have: the administrator who grants the bike mix's moderators their role (no route grants `admin`; docs/auth.md).
    private func createAdministrator(binDirectory: URL, dataDirectory: URL, secrets: LaunchedPlatform.Secrets, settings: [String: String],
                                     logger: Logger) throws {
        let log = dataDirectory.appendingPathComponent("create-admin.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw BenchError("cannot create \(log.path)") }
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = binDirectory.appendingPathComponent("auth")
        process.arguments = ["create-admin", "--username", BikeSetup.administrator.username, "--email", BikeSetup.administrator.email]
        process.environment = ProcessInfo.processInfo.environment.merging(settings) { $1 }.merging(secrets.environment) { $1 }
            .merging(["WAYPOINT_DATA_DIR": dataDirectory.path, "WAYPOINT_ADMIN_PASSWORD": BikeSetup.password]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("auth create-admin failed (status \(process.terminationStatus)): \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
        logger.info("administrator \(BikeSetup.administrator.email) created (auth create-admin) for the bike mix's moderators")
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
