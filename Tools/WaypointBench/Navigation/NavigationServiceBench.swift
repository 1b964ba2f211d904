import AsyncHTTPClient
import Foundation
import Logging
import Navigation
import NIOCore
import NIOHTTP1
import NIOPosix
import RoadNetwork
import ServiceKit
import ServiceTesting

/// `waypoint-bench navigation` end to end (``NavigationPlatform``): the phases in order, each on its own riders and
/// sessions, then the figures and the targets.
enum NavigationServiceBench {
    static func measure(_ settings: NavigationBenchSettings, logger: Logger) async throws -> NavigationFigures {
        let loadAtStart = loadAverage()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        logger.info("""
            \(cores) cores (shared with whatever else runs: load average \(loadAtStart)); storage \(settings.postgresURL == nil ? "sqlite" : "postgres"); \
            route \(settings.routeRate)/s × \(settings.routeSeconds) s, positions \(settings.positions), pushes \(settings.pushes), reroutes \(settings.reroutes), \
            overlay events \(settings.overlayEvents), sessions \(settings.sessions) × \(settings.sessionSeconds) s via \(settings.sessionsViaGateway ? "gateway" : "service"); \
            seed \(settings.seed)
            """)
        let roads = try loadRoads(settings.dataDirectory, logger: logger)
        let cities = CityPairs(graph: roads.graph, centres: NavigationBenchCity.all)
        for city in cities.cities {
            logger.info("""
                \(city.name): \(city.vertices) vertices, main component \(city.latitudes.count); box \
                \(String(format: "%.4f,%.4f – %.4f,%.4f", city.south, city.west, city.north, city.east))
                """)
        }
        return try await NavigationPlatform.with(roads: roads, postgresURL: settings.postgresURL, logger: logger) { platform in
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.clientConfiguration)
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            do {
                let context = PhaseContext(platform: platform, client: client, cities: cities, settings: settings, loop: group.next(), logger: logger)
                let figures = try await context.measureAll(cores: cores, loadAtStart: loadAtStart)
                try await client.shutdown()
                try await group.shutdownGracefully()
                return figures
            } catch {
                try? await client.shutdown()
                try? await group.shutdownGracefully()
                throw error
            }
        }
    }

    /// Enough connections per host for the riders and streams that run at once (the default pool holds 8).
    static var clientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 256
        return configuration
    }

    /// One network of the three extracts, through a compiled cache kept in the temporary directory between runs.
    static func loadRoads(_ directory: URL, logger: Logger) throws -> NavigationRoads {
        let extracts = NavigationBenchCity.all.map { directory.appendingPathComponent($0.file).path }
        for path in extracts where !FileManager.default.fileExists(atPath: path) {
            throw BenchError("\(path) not found (give --data-dir or WAYPOINT_REFERENCE_DATA_DIR)")
        }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-bench-navigation-roads").path
        let clock = ContinuousClock(), started = clock.now
        let roads = NavigationRoads(network: try RoadNetworkExtracts.load(extracts, cacheDirectory: cache, logger: NavigationPlatform.quietLogger))
        logger.info("""
            road network of krems, monaco and helsinki: \(roads.graph.vertexCount) vertices, \(roads.graph.edgeCount) edges \
            (\(roads.network.source)), router and guide in \(clock.now - started)
            """)
        return roads
    }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    }
}

/// A rider of the bench: a user with a token and, once started, a session and its simulated ride.
struct BenchRider: Sendable {
    var user: UUID
    var token: String
    var session: UUID
    /// The session's route, as the service stored it.
    var ride: RideAlong
    /// The fixes' clock: the route's start is ridden at this time (fix times are `start + along / speed`).
    var start: Date

    static let speed = 5.0

    /// The time of a fix at `along` metres.
    func time(_ along: Double) -> Date { start.addingTimeInterval(along / Self.speed) }

    /// A valid access token for `user` for two hours (longer than any run; auth's are 15 minutes, which a long run
    /// outlives), signed with the test key the platform's JWKS publishes.
    static func token(_ user: UUID) async throws -> String {
        try await TestSigningKey.primary.sign(TokenForge.claims(subject: user.uuidString.lowercased(), sessionId: UUID().uuidString.lowercased(),
                                                                expiresAt: Date().addingTimeInterval(7_200)))
    }
}

/// What every phase needs.
struct PhaseContext: Sendable {
    let platform: NavigationPlatform
    let client: HTTPClient
    let cities: CityPairs
    let settings: NavigationBenchSettings
    let loop: any EventLoop
    let logger: Logger

    var server: NavigationServer { platform.server }

    func measureAll(cores: Int, loadAtStart: String) async throws -> NavigationFigures {
        let phases = settings.phases
        let none = NavigationFigures.Counted(latencies: Latencies(), count: 0)
        let route = phases.contains(.routes) ? try await routeSearch()
            : NavigationFigures.RouteFigures(latencies: Latencies(), requests: 0, ok: 0, noRoute: 0, errors: 0, rateRPS: 0, achievedRPS: 0, durationS: 0)
        let inProcess = phases.contains(.positions) ? try await positionsInProcess() : none
        let (gateway, gatewayErrors) = phases.contains(.positions) ? try await positionsThroughGateway() : (none, 0)
        let positions = NavigationFigures.PositionFigures(inProcess: inProcess, gateway: gateway, gatewayErrors: gatewayErrors)
        let push = phases.contains(.push) ? try await pushLatency() : none
        let reroute = phases.contains(.reroutes) ? try await reroutes() : NavigationFigures.RerouteFigures(timed: none, rerouted: 0, attempts: 0)
        let (overlay, rebuild) = phases.contains(.overlay) ? try await overlayApply()
            : (0, NavigationFigures.OverlayRebuild(lastMilliseconds: 0, maxMilliseconds: 0, swaps: 0, events: 0, paths: 0))
        let sessions = phases.contains(.sessions) ? try await concurrentSessions()
            : NavigationFigures.SessionFigures(via: "-", sessions: 0, held: 0, seconds: 0, fixes: 0, errors: 0, errorBreakdown: [:], achievedFixRate: 0,
                                               update: Latencies())
        let loadAtEnd = NavigationServiceBench.loadAverage()
        let targets = NavigationFigures.targets(route: route, positions: positions, push: push, sessions: sessions,
                                                fullSize: settings.sessions >= 5_000)
        for (key, target) in targets.sorted(by: { $0.key < $1.key }) {
            logger.info("target \(key): \(target.target) — \(String(format: "%.3f", target.value)) \(target.met ? "✓" : "✗")")
        }
        let machine = NavigationFigures.Machine(
            cores: cores, loadAverageStart: loadAtStart, loadAverageEnd: loadAtEnd, storage: settings.postgresURL == nil ? "sqlite" : "postgres",
            quick: settings.quick,
            note: "navigation, gateway, stand-in feeds and the clients in one process on \(cores) shared cores (other builds may run)")
        return NavigationFigures(machine: machine, routeHTTP: route, positionUpdate: positions, pushLatency: push, reroute: reroute,
                                 overlayApplyMilliseconds: overlay, overlayRebuild: rebuild, sessions: sessions, targets: targets)
    }

    // MARK: Helpers shared by the phases

    /// `method path` at `base` with a JSON body and a bearer token: status, body, and the time from sending to the
    /// whole answer.
    func exchange(_ method: HTTPMethod, _ base: String, _ path: String, json: String?, token: String?) async throws
        -> (status: Int, body: Data, elapsed: Duration) {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let clock = ContinuousClock(), started = clock.now
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), Data(bytes.readableBytesView), clock.now - started)
    }

    /// Starts a session for a new rider on each pair (through navigation's own HTTP, `concurrency` at a time; setup,
    /// untimed) and reads back each session's route in process. Pairs whose start fails (NoRoute, …) are skipped and
    /// counted on stderr.
    func startRiders(_ pairs: [(city: Int, from: RoadPoint, to: RoadPoint)], clockStart: @escaping @Sendable () -> Date,
                     base: String? = nil, concurrency: Int = 16, label: String) async throws -> [BenchRider] {
        let base = base ?? platform.navigationBase
        let clock = ContinuousClock(), started = clock.now
        let riders = try await withThrowingTaskGroup(of: [BenchRider?].self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var started: [BenchRider?] = []
                    for index in stride(from: worker, to: pairs.count, by: concurrency) {
                        started.append(try await startRider(pairs[index], base: base, clockStart: clockStart))
                    }
                    return started
                }
            }
            var all: [BenchRider?] = []
            for try await part in group { all += part }
            return all
        }
        let ok = riders.compactMap { $0 }
        logger.info("\(label): \(ok.count) sessions started (\(riders.count - ok.count) starts refused) in \(clock.now - started)")
        return ok
    }

    private func startRider(_ pair: (city: Int, from: RoadPoint, to: RoadPoint), base: String, clockStart: @Sendable () -> Date) async throws
        -> BenchRider? {
        let user = UUID()
        let token = try await BenchRider.token(user)
        let body = NavigationRequests.sessionBody(from: pair.from, to: pair.to)
        let answer = try await exchange(.POST, base, "/v1/navigation/sessions", json: body, token: token)
        guard answer.status == 201, let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
              let id = (object["id"] as? String).flatMap(UUID.init(uuidString:)) else { return nil }
        let state = try await server.sessions.session(id, of: user)
        return BenchRider(user: user, token: token, session: id, ride: RideAlong(points: state.route.points), start: clockStart())
    }

    static func socketAddress(port: Int) throws -> SocketAddress {
        try SocketAddress(ipAddress: "127.0.0.1", port: port)
    }
}
