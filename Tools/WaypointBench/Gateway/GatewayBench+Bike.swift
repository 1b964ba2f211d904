import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ReferenceData
import RoadNetwork

extension GatewayBench {
    /// The bike mix's setup, done: its workload and the accounts behind it (their tokens may need refreshing).
    struct PreparedBike: Sendable {
        var workload: BikeWorkload
        var accounts: [BikeSetup.Account]
        var setup: BikeSetup
    }

    /// Access tokens older than this at the start of the bike mix are refreshed first (auth's live 15 minutes; the mix
    /// with its warm-up lasts `--warmup` + `--bike-duration` seconds).
    static let tokenRefreshAge: Duration = .seconds(600)

    /// The bike mix's setup on the launched platform (``BikeSetup``; untimed): the riders and the moderators, approved
    /// paths, a session and a trip per rider; then the requests' route pairs and boxes, all drawn on the platform's
    /// street network (krems.osm.gz, the services' default extract) with `--seed`.
    func prepareBike(_ state: LaunchedPlatform.State, client: HTTPClient, logger: Logger) async throws -> PreparedBike {
        guard let auth = state.service("auth") else { throw BenchError("the launcher runs no auth") }
        let missing = LaunchedPlatform.bikeExecutables.filter { state.service($0) == nil }
        guard missing.isEmpty else { throw BenchError("the bike mix needs \(missing.joined(separator: ", ")), which the launcher does not run") }
        let cities = try Self.kremsPairs(logger: logger)
        let city = cities.cities[0]
        let total = bikeRate * (warmup + bikeDuration)
        let kinds = BikeWorkload.kinds(count: total)
        // Every rider rides the whole run on its route, from its start at 5 m/s: routes at least that long, plus margin.
        let ride = BikeWorkload.speed * Double(warmup + bikeDuration)
        let sessionPairs = cities.pairs(count: bikeSessions + bikeSessions / 20 + 10, minimumMetres: max(800, ride + 300), seed: seed &+ 0xB1)
        // Distinct route searches and boxes: at most 2,000 of each, used in turn (navigation caches no route answer, the
        // gateway caches neither).
        let routePairs = cities.pairs(count: max(1, min(2_000, kinds.count { $0 == .route })), minimumMetres: 500, seed: seed &+ 0xB2)
        var random = SeededGenerator(seed: seed &+ 0xB3)
        let boxes = (0..<max(1, min(2_000, kinds.count { $0 == .bbox }))).map { _ in
            let vertex = Int.random(in: 0..<city.latitudes.count, using: &random)
            return BoxQuery.viewport(city: 0, around: RoadPoint(latitude: city.latitudes[vertex], longitude: city.longitudes[vertex]), random: &random).query
        }
        let pathPairs = cities.pairs(count: bikePaths, minimumMetres: 300, maximumMetres: 2_500, seed: seed &+ 0xB4)
        guard sessionPairs.count >= bikeSessions, pathPairs.count == bikePaths else {
            throw BenchError("could not draw \(bikeSessions) session routes of \(Int(ride + 300)) m or more and \(bikePaths) path lines in \(city.name)")
        }

        let setup = BikeSetup(gateway: BenchHTTP(client: client, base: state.gatewayURL), auth: BenchHTTP(client: client, base: auth.url), logger: logger)
        let riders = try await setup.riders(bikeSessions)
        let moderators = try await setup.moderators((bikePaths + BikeSetup.pathsPerModerator - 1) / BikeSetup.pathsPerModerator)
        let approved = try await setup.approvedPaths(pathPairs, authors: riders, moderators: moderators)
        try await setup.waitForListing(approved, box: BoxQuery(city: 0, west: city.west, south: city.south, east: city.east, north: city.north, zoom: 14))
        let sessions = try await setup.sessions(riders, pairs: sessionPairs)
        let trips = try await setup.trips(sessions)
        let workload = BikeWorkload(riders: sessions, trips: trips, routes: routePairs.map { NavigationRequests.routePath($0.from, $0.to) },
                                    boxes: boxes)
        return PreparedBike(workload: workload, accounts: riders, setup: setup)
    }

    /// Pairs on the street network the services load by default: krems.osm.gz of the reference data.
    private static func kremsPairs(logger: Logger) throws -> CityPairs {
        let directory = ReferenceDataDirectory.locate() ?? URL(fileURLWithPath: "../shared/data", isDirectory: true)
        let krems = NavigationBenchCity.all.first { $0.name == "krems" }!
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-bench-gateway-roads").path
        let network = try RoadNetworkLoader.load(extracts: [directory.appendingPathComponent(krems.file).path], cacheDirectory: cache)
        let cities = CityPairs(graph: network.graph, centres: [krems])
        let city = cities.cities[0]
        let width = RoadPoint(latitude: city.south, longitude: city.west).metres(to: RoadPoint(latitude: city.south, longitude: city.east))
        let height = RoadPoint(latitude: city.south, longitude: city.west).metres(to: RoadPoint(latitude: city.north, longitude: city.west))
        logger.info("""
            bike mix: \(krems.file): \(network.graph.vertexCount) vertices, main component \(city.latitudes.count) in \
            \(String(format: "%.1f × %.1f km", width / 1_000, height / 1_000))
            """)
        return cities
    }

    /// The bike mix's requests, ready to send: its targets and its plan, the first `measuredFrom` requests a warm-up.
    struct BikeLoad: Sendable {
        var targets: [LoadTarget]
        var plan: [PlannedRequest]
        var measuredFrom: Int
    }

    /// The bike mix's targets and plan (``BikeWorkload``): `--bike-rate` × (`--warmup` + `--bike-duration`) requests in
    /// the mix's proportions, the first `--warmup` seconds a warm-up. Refreshes the riders' access tokens first when they
    /// are old (a slow setup).
    func planBike(_ prepared: PreparedBike, gateway: SocketAddress, logger: Logger) async throws -> BikeLoad {
        var workload = prepared.workload
        if let oldest = prepared.accounts.map(\.issued).min(), ContinuousClock.now - oldest > Self.tokenRefreshAge {
            logger.info("bike mix: the riders' access tokens are \(secondsText(ContinuousClock.now - oldest)) s old: refreshing them")
            let fresh = try await prepared.setup.refreshed(prepared.accounts)
            for index in workload.riders.indices { workload.riders[index].token = fresh[index].token }
        }
        let browsing = Double(bikeRate) * Double(BikeWorkload.shares[BikeKind.route.rawValue] + BikeWorkload.shares[BikeKind.bbox.rawValue]) / 100
        if browsing / Double(bikeConnections) > 8 {
            logger.warning("""
                each anonymous bike client sends \(String(format: "%.1f", browsing / Double(bikeConnections)))/s: near the gateway's default \
                per-client limit (600/min); raise --bike-connections
                """)
        }
        let targets = workload.targets(gateway: gateway, host: Self.hostField(gateway),
                                       browseSources: try LoopbackClients.sources(block: ClientBlock.bikeBrowse, connections: bikeConnections),
                                       riderSources: try LoopbackClients.sources(block: ClientBlock.bikeRiders, connections: workload.riders.count),
                                       tripSources: try LoopbackClients.sources(block: ClientBlock.bikeTrips, connections: workload.trips.count))
        let measuredFrom = bikeRate * warmup
        let planned = ContinuousClock.now
        let plan = try workload.plan(count: bikeRate * (warmup + bikeDuration), rate: Double(bikeRate), clock: Date(), seed: seed &+ 0xB5)
        logger.info("""
            bike mix: \(plan.count) requests at \(bikeRate)/s (the first \(measuredFrom) a warm-up) — \
            \(BikeKind.allCases.map { kind in "\(kind.name) \(plan.count { $0.kind == kind.rawValue })" }.joined(separator: ", ")) — planned in \
            \(secondsText(ContinuousClock.now - planned)) s; \(workload.riders.count) sessions and \(workload.trips.count) trips on a connection each \
            (127.\(ClientBlock.bikeRiders).x.y, 127.\(ClientBlock.bikeTrips).x.y), \(bikeConnections) anonymous clients (127.\(ClientBlock.bikeBrowse).x.y)
            """)
        return BikeLoad(targets: targets, plan: plan, measuredFrom: measuredFrom)
    }

    /// The bike mix: `load` open loop at `--bike-rate`, its warm-up not measured; progress, the client's own figures
    /// and the platform's CPU on stderr.
    func runBike(_ load: BikeLoad, processes: [(String, Int32)], loop: any EventLoop, logger: Logger) async throws -> BikeFigures {
        let (targets, plan, measuredFrom) = (load.targets, load.plan, load.measuredFrom)
        let cpuBefore = ProcessResources.cpuTime()
        let platform = PlatformCPU(processes)
        let records = try await OpenLoopLoad.run(targets: targets, plan: plan, rate: Double(bikeRate), timeout: .seconds(Int64(timeout)), on: loop)
        let figures = BikeFigures(records, from: measuredFrom)
        reportBike(records, figures: figures, measuredFrom: measuredFrom, clientCPU: ProcessResources.cpuTime() - cpuBefore, logger: logger)
        logger.info("platform CPU during the bike mix (share of one core): \(platform.shares(over: records.wallTime))")
        return figures
    }

    /// Targets of issue 22 for the bike mix, p99 in ms (uploads have none).
    static let bikeTargets: [(BikeKind, Double)] = [(.route, 20), (.position, 20), (.bbox, 20)]

    private func reportBike(_ records: LoadRecords, figures: BikeFigures, measuredFrom: Int, clientCPU: Duration, logger: Logger) {
        let measured = measuredFrom..<records.plan.count
        let warmUp = records.indexedLatencies { $0 < measuredFrom }
        logger.info("""
            bike mix: achieved \(String(format: "%.1f", records.achievedRate))/s, wall \(secondsText(records.wallTime)) s; warm-up \(warmUp), \
            \((0..<measuredFrom).count { records.outcomes[$0].isError }) errors
            """)
        for kind in BikeKind.allCases {
            let indices = measured.filter { records.plan[$0].kind == kind.rawValue }
            let latencies = figures[kind]
            var errors: [String: Int] = [:]
            for index in indices where records.outcomes[index].isError {
                let body = records.errorBodies[index].map { " \($0.prefix(100))" } ?? ""
                errors[records.outcomes[index].label + body, default: 0] += 1
            }
            logger.info("""
                bike mix: \(kind.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(latencies) p90 \
                \(String(format: "%.2f", latencies.percentile(0.9))) ms; errors \(errors.values.reduce(0, +))\(errors.isEmpty ? "" : " \(errors)")
                """)
        }
        let cpuShare = clientCPU.seconds / max(records.wallTime.seconds, 0.001) * 100
        logger.info("""
            bike client: send lag \(records.sendLag) (intended → written); \(records.queued) requests waited for their connection; \
            \(records.reconnects) reconnects, \(records.connectFailures) connect failures; CPU \(secondsText(clientCPU)) s = \
            \(String(format: "%.0f", cpuShare)) % of one core; \(records.bodyBytes / 1_048_576) MiB of answers
            """)
        let verdicts = Self.bikeTargets.map { kind, target in
            let p99 = figures[kind].roundedPercentile(0.99)
            return "\(kind.name) p99 \(p99) ms ≤ \(Int(target)) \(p99 <= target ? "✓" : "✗")"
        }
        logger.info("bike targets (issue 22): errors \(figures.errors) = 0 \(figures.errors == 0 ? "✓" : "✗"); \(verdicts.joined(separator: "; "))")
    }
}
