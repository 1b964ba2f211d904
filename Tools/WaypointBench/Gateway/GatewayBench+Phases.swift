import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

extension GatewayBench {
    /// Client address blocks (`127.<block>.x.y`) of the phases, so no phase shares a rate-limit bucket with another.
    enum ClientBlock {
        static let load: UInt8 = 1, overhead: UInt8 = 2, idle: UInt8 = 3, check: UInt8 = 4
        /// The bike mix: anonymous route searches and bbox reads; the riders' sessions; their trips.
        static let bikeBrowse: UInt8 = 5, bikeRiders: UInt8 = 6, bikeTrips: UInt8 = 7
        /// The peer phase: direct, gateway and nginx, 16 clients each.
        static let peer: UInt8 = 8
    }

    /// Everything after the launch: readiness, then warm-up, overhead, the tours mix, the bike mix and idle connections.
    func measure(_ platform: LaunchedPlatform, workload: GatewayWorkload, dataDirectory: URL, logger: Logger) async throws -> GatewayFigures {
        let state = try await platform.waitUntilReady(timeout: .seconds(readyTimeout + 300), logger: logger)
        guard let gateway = state.service("gateway"), let gatewayPid = gateway.pid, let tourManagement = state.service("tour-management") else {
            throw BenchError("the launcher runs no gateway or no tour-management (\(state.services.map(\.name)))")
        }
        let gatewayAddress = try Self.socketAddress(gateway.url), directAddress = try Self.socketAddress(tourManagement.url)
        logger.info("""
            gateway \(gateway.url) (pid \(gatewayPid), open-file limit \(ProcessResources.openFileLimit(pid: gatewayPid).map(String.init) ?? "?")), \
            tour-management \(tourManagement.url)
            """)
        // With both mixes at once, each gets a client thread of its own.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: bikeWithTours ? 2 : 1)
        let client = bike ? HTTPClient(eventLoopGroupProvider: .singleton, configuration: NavigationServiceBench.clientConfiguration) : nil
        do {
            try await waitForCatalogue(workload, direct: directAddress, loop: group.next(), logger: logger)
            try await settle(state.services.compactMap(\.pid), logger: logger)
            let processes = state.services.compactMap { service in service.pid.map { (service.name, $0) } }
                + [("waypoint (launcher)", platform.launcherPid)]
            let loops = Loops(tours: group.next(), bike: group.next())
            let figures: GatewayFigures
            if only == .proxy {
                let peers = try await measureProxyPeers(workload, gateway: gatewayAddress, gatewayPid: gatewayPid, direct: directAddress,
                                                        parent: dataDirectory, loop: loops.tours, logger: logger)
                figures = GatewayFigures(rateRps: nil, durationS: nil, latencyMs: nil, errors: nil, overheadP50Ms: nil, idleConnectionsHeld: nil,
                                         gatewayRssMb: nil, bike: nil, peers: peers)
            } else {
                figures = try await phases(workload, state: state, client: client, gateway: gatewayAddress, direct: directAddress,
                                           gatewayPid: gatewayPid, processes: processes, loops: loops, dataDirectory: dataDirectory, logger: logger)
            }
            let restarted = (platform.state()?.services ?? []).filter { now in state.service(now.name).map { $0.pid != now.pid } ?? false }
            if !restarted.isEmpty {
                logger.warning("restarted during the run: \(restarted.map(\.name).joined(separator: ", ")): the figures are not valid")
            }
            try await client?.shutdown()
            try await group.shutdownGracefully()
            return figures
        } catch {
            try? await client?.shutdown()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// The client threads: the tours mix's (and every other phase's), and the bike mix's (the same one unless both
    /// mixes run at once).
    struct Loops {
        var tours: any EventLoop
        var bike: any EventLoop
    }

    private func phases(_ workload: GatewayWorkload, state: LaunchedPlatform.State, client: HTTPClient?, gateway: SocketAddress, direct: SocketAddress,
                        gatewayPid: Int32, processes: [(String, Int32)], loops: Loops, dataDirectory: URL, logger: Logger) async throws -> GatewayFigures {
        let loop = loops.tours
        let agent: HTTPHeaders = ["User-Agent": "waypoint-bench"]
        let load = LoadTarget(name: "gateway", address: gateway, host: Self.hostField(gateway), headers: agent,
                              sources: try LoopbackClients.sources(block: ClientBlock.load, connections: connections))

        var preparedBike: PreparedBike?
        if bikeWithTours, let client {
            // Set up before the tours warm-up, so that the platform has settled from both setups before either mix.
            preparedBike = try await prepareBike(state, client: client, logger: logger)
            try await settle(processes.map(\.1), logger: logger)
        }
        if warmup > 0 {
            let records = try await OpenLoopLoad.run(targets: [load], plan: workload.plan(count: rate * warmup, target: 0, seed: seed ^ 0x3A3A),
                                                     rate: Double(rate), timeout: .seconds(Int64(timeout)), on: loop)
            logger.info("warm-up: \(records.plan.count) requests in \(secondsText(records.wallTime)) s, \(records.errors) errors; \(records.latencies())")
            // The warm-up leaves work behind (its detail views are appended, projected and ingested by analytics);
            // the overhead pairs measure what the gateway adds to a request, so they start once that work is done.
            try await settle(processes.map(\.1), logger: logger)
        }
        let overhead = try await measureOverhead(workload, gateway: gateway, direct: direct, loop: loop, logger: logger)
        let peers = peerRequests > 0
            ? try await measureProxyPeers(workload, gateway: gateway, gatewayPid: gatewayPid, direct: direct, parent: dataDirectory, loop: loop, logger: logger)
            : nil

        let records: LoadRecords
        var bikeFigures: BikeFigures?
        if let preparedBike {
            // Both mixes at once: the tours mix starts when the bike mix's warm-up ends (give or take the opening of
            // the bike mix's connections).
            logger.info("the bike mix and the tours mix at the same time (--bike-with-tours)")
            let bikeLoad = try await planBike(preparedBike, gateway: gateway, logger: logger)
            async let bikeRun = runBike(bikeLoad, processes: processes, loop: loops.bike, logger: logger)
            try await Task.sleep(for: .seconds(warmup))
            records = try await runMixedLoad(workload, target: load, processes: processes, loop: loop, logger: logger)
            bikeFigures = try await bikeRun
        } else {
            records = try await runMixedLoad(workload, target: load, processes: processes, loop: loop, logger: logger)
            if bike, let client {
                let prepared = try await prepareBike(state, client: client, logger: logger)
                try await settle(processes.map(\.1), logger: logger)
                let bikeLoad = try await planBike(prepared, gateway: gateway, logger: logger)
                bikeFigures = try await runBike(bikeLoad, processes: processes, loop: loops.bike, logger: logger)
            }
        }
        let (held, rss) = try await holdIdleConnections(workload, gateway: gateway, gatewayPid: gatewayPid, loop: loop, logger: logger)
        return GatewayFigures(
            rateRps: rate, durationS: duration, latencyMs: .init(records.latencies()), errors: records.errors,
            overheadP50Ms: (overhead * 100).rounded() / 100, idleConnectionsHeld: held, gatewayRssMb: (rss * 10).rounded() / 10, bike: bikeFigures,
            peers: peers)
    }

    /// Waits until tour-management serves the seeded tours (its discovery projection replays them at start).
    private func waitForCatalogue(_ workload: GatewayWorkload, direct: SocketAddress, loop: any EventLoop, logger: Logger) async throws {
        let probe = LoadTarget(name: "tour-management", address: direct, host: Self.hostField(direct), headers: ["User-Agent": "waypoint-bench"],
                               sources: try LoopbackClients.sources(block: ClientBlock.check, connections: 2))
        let ids = [workload.corpus.events.first!, workload.corpus.events.last!].map(\.tourId)
        let plan = ids.map { PlannedRequest(target: 0, path: "/v1/tours/\($0.uuidString.lowercased())", kind: .detail) }
        let deadline = ContinuousClock.now + .seconds(300)
        while true {
            let records = try await OpenLoopLoad.run(targets: [probe], plan: plan, rate: 50, timeout: .seconds(10), on: loop)
            if records.errors == 0 { return }
            guard ContinuousClock.now < deadline else {
                throw BenchError("tour-management does not serve the seeded tours: \(records.errorSamples(2).joined(separator: "; "))")
            }
            logger.info("waiting for tour-management to project the seeded tours (\(records.errorSamples(1).joined()))")
            try await Task.sleep(for: .seconds(2))
        }
    }

    /// Waits until the platform is idle: the seeded tours leave work behind the start (tour-management builds an
    /// offline bundle per published tour, analytics ingests the events), and a measurement taken while it runs would
    /// measure that backlog rather than a platform in its steady state. Idle = the services together use less than
    /// ``idleShare`` of one core over two consecutive 2-second windows.
    private func settle(_ pids: [Int32], logger: Logger) async throws {
        guard settleTimeout > 0 else { return logger.info("settle: skipped (--settle-timeout 0)") }
        func platformCPU() -> Duration { pids.reduce(.zero) { $0 + (ProcessResources.cpuTime(pid: $1) ?? .zero) } }
        let started = ContinuousClock.now, window = Duration.seconds(2)
        var quietWindows = 0, lastReport = started
        var previous = platformCPU()
        while quietWindows < 2 {
            guard ContinuousClock.now - started < .seconds(settleTimeout) else {
                return logger.warning("settle: the platform was still busy after \(settleTimeout) s (--settle-timeout); measuring anyway")
            }
            try await Task.sleep(for: window)
            let now = platformCPU()
            let share = (now - previous).seconds / window.seconds
            previous = now
            quietWindows = share < Self.idleShare ? quietWindows + 1 : 0
            if ContinuousClock.now - lastReport >= .seconds(15) {
                logger.info("settle: the platform uses \(String(format: "%.0f", share * 100)) % of a core (background work after the seeding)")
                lastReport = ContinuousClock.now
            }
        }
        logger.info("settle: idle after \(secondsText(ContinuousClock.now - started)) s")
    }

    /// The platform's CPU, as a share of one core, below which it counts as idle. The idle platform itself uses
    /// 3–11 % (its projections and subscriptions re-read their logs every 100 ms; ~10–11 % on a slow machine, where a
    /// 10 % bound made the wait run into `--settle-timeout`); the seeding's backlog uses most of a core.
    static let idleShare = 0.15

    static func socketAddress(_ url: String) throws -> SocketAddress {
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
            throw BenchError("not a base URL: \(url)")
        }
        return try SocketAddress(ipAddress: host, port: port)
    }

    static func hostField(_ address: SocketAddress) -> String {
        "\(address.ipAddress ?? "127.0.0.1"):\(address.port ?? 80)"
    }
}
