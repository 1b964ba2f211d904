import ArgumentParser
import Foundation
import Logging
import ReferenceData

/// `waypoint-bench navigation`: the navigation service's figures (issue 21) — route search through the gateway,
/// position updates in process and through the gateway, pushed guidance on the gateway's stream, off-route reroutes,
/// the community overlay catching up with `waypoint.paths`, and thousands of concurrent sessions at one fix a second
/// (``NavigationServiceBench``).
struct NavigationBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navigation",
        abstract: "Measures navigation: routes via the gateway, position updates, pushes, reroutes, overlay catch-up, 5,000 sessions.",
        discussion: """
            One road network of krems.osm.gz, monaco.osm.gz and helsinki.osm.pbf from --data-dir (compiled cache kept in \
            the temporary directory). navigation and the gateway run in this process, as their serve commands assemble \
            them, with stand-in feeds for auth, path-review and tour-management; SQLite in a temporary directory unless \
            --postgres (then WAYPOINT_BENCH_POSTGRES_URL, e.g. from scripts/with-postgres.sh). See docs/benchmarks.md, "navigation".
            """
    )

    @Flag(help: "A short run for development: fewer requests, sessions and seconds.")
    var quick = false

    @Flag(help: "Store on PostgreSQL (WAYPOINT_BENCH_POSTGRES_URL, a fresh schema dropped afterwards) instead of SQLite.")
    var postgres = false

    @Option(help: "Route searches per second through the gateway (open loop).")
    var routeRate: Int?

    @Option(help: "Seconds of route searches.")
    var routeSeconds: Int?

    @Option(help: "Timed position updates, in process and through the gateway (each).")
    var positions: Int?

    @Option(help: "Instructions whose push is timed.")
    var pushes: Int?

    @Option(help: "Timed off-route reroutes (in process).")
    var reroutes: Int?

    @Option(help: "waypoint.paths events appended for the overlay's catch-up.")
    var overlayEvents: Int?

    @Option(help: "Concurrent sessions sending one fix a second.")
    var sessions: Int?

    @Option(help: "Seconds the concurrent sessions send.")
    var sessionSeconds: Int?

    @Option(help: "Where the concurrent sessions send: service (navigation's own HTTP) or gateway.")
    var sessionsVia: SessionsVia = .service

    @Option(help: "Run only this phase (repeatable): routes, positions, push, reroutes, overlay, sessions. Default: all.")
    var only: [NavigationBenchSettings.Phase] = []

    @Option(help: "Directory of the extracts (default: ../shared/data, found like the other reference data).")
    var dataDir: String?

    @Option(help: "Seed of every random choice.")
    var seed: UInt64 = 21

    enum SessionsVia: String, ExpressibleByArgument, Sendable {
        case service, gateway
    }

    func validate() throws {
        for (name, value) in [("--route-rate", routeRate), ("--route-seconds", routeSeconds), ("--positions", positions), ("--pushes", pushes),
                              ("--reroutes", reroutes), ("--overlay-events", overlayEvents), ("--sessions", sessions),
                              ("--session-seconds", sessionSeconds)] {
            if let value, value <= 0 { throw ValidationError("\(name) must be positive") }
        }
        if postgres, ProcessInfo.processInfo.environment[PostgresEventStoreBench.urlVariable] == nil {
            throw ValidationError("--postgres needs \(PostgresEventStoreBench.urlVariable) (scripts/with-postgres.sh sets it)")
        }
    }

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.navigation")
        let figures = try await NavigationServiceBench.measure(settings, logger: logger)
        try BenchOutput.printJSON(figures)
    }

    var settings: NavigationBenchSettings {
        let directory = dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? ReferenceDataDirectory.locate() ?? URL(fileURLWithPath: "../shared/data", isDirectory: true)
        let base = quick ? NavigationBenchSettings.quick : NavigationBenchSettings.full
        var settings = base
        settings.dataDirectory = directory
        settings.postgresURL = postgres ? ProcessInfo.processInfo.environment[PostgresEventStoreBench.urlVariable] : nil
        settings.routeRate = routeRate ?? base.routeRate
        settings.routeSeconds = routeSeconds ?? base.routeSeconds
        settings.positions = positions ?? base.positions
        settings.pushes = pushes ?? base.pushes
        settings.reroutes = reroutes ?? base.reroutes
        settings.overlayEvents = overlayEvents ?? base.overlayEvents
        settings.sessions = sessions ?? base.sessions
        settings.sessionSeconds = sessionSeconds ?? base.sessionSeconds
        settings.sessionsViaGateway = sessionsVia == .gateway
        settings.seed = seed
        settings.quick = quick
        settings.phases = only.isEmpty ? Set(NavigationBenchSettings.Phase.allCases) : Set(only)
        return settings
    }
}

/// What one run measures and on what.
struct NavigationBenchSettings: Sendable {
    var dataDirectory = URL(fileURLWithPath: "../shared/data", isDirectory: true)
    var postgresURL: String?
    var routeRate: Int
    var routeSeconds: Int
    var positions: Int
    var pushes: Int
    var reroutes: Int
    var overlayEvents: Int
    var sessions: Int
    var sessionSeconds: Int
    var sessionsViaGateway = false
    var seed: UInt64 = 21
    var quick = false
    var phases = Set(Phase.allCases)

    /// The phases, for `--only` (a phase left out prints zeros and empty figures).
    enum Phase: String, CaseIterable, ExpressibleByArgument, Sendable {
        case routes, positions, push, reroutes, overlay, sessions
    }

    /// The figures issue 21 asks for.
    static let full = NavigationBenchSettings(routeRate: 200, routeSeconds: 20, positions: 3_000, pushes: 200, reroutes: 100, overlayEvents: 1_000,
                                              sessions: 5_000, sessionSeconds: 30)
    /// `--quick`.
    static let quick = NavigationBenchSettings(routeRate: 100, routeSeconds: 5, positions: 400, pushes: 30, reroutes: 20, overlayEvents: 1_000,
                                               sessions: 500, sessionSeconds: 10)
}
