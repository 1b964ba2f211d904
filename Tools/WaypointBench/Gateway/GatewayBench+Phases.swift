import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

extension GatewayBench {
    /// Client address blocks (`127.<block>.x.y`) of the phases, so no phase shares a rate-limit bucket with another.
    enum ClientBlock {
        static let load: UInt8 = 1, overhead: UInt8 = 2, idle: UInt8 = 3, check: UInt8 = 4
    }

    /// Everything after the launch: readiness, then warm-up, overhead, mixed load and idle connections.
    func measure(_ platform: LaunchedPlatform, workload: GatewayWorkload, logger: Logger) async throws -> GatewayFigures {
        let state = try await platform.waitUntilReady(timeout: .seconds(readyTimeout + 300), logger: logger)
        guard let gateway = state.service("gateway"), let gatewayPid = gateway.pid, let tourManagement = state.service("tour-management") else {
            throw BenchError("the launcher runs no gateway or no tour-management (\(state.services.map(\.name)))")
        }
        let gatewayAddress = try Self.socketAddress(gateway.url), directAddress = try Self.socketAddress(tourManagement.url)
        logger.info("""
            gateway \(gateway.url) (pid \(gatewayPid), open-file limit \(ProcessResources.openFileLimit(pid: gatewayPid).map(String.init) ?? "?")), \
            tour-management \(tourManagement.url)
            """)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await waitForCatalogue(workload, direct: directAddress, loop: group.next(), logger: logger)
            try await settle(state.services.compactMap(\.pid), logger: logger)
            let figures = try await phases(workload, gateway: gatewayAddress, direct: directAddress, gatewayPid: gatewayPid,
                                           loop: group.next(), logger: logger)
            if let now = platform.state()?.service("gateway")?.pid, now != gatewayPid {
                logger.warning("the gateway restarted during the run (pid \(gatewayPid) → \(now)): the figures are not valid")
            }
            try await group.shutdownGracefully()
            return figures
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private func phases(_ workload: GatewayWorkload, gateway: SocketAddress, direct: SocketAddress, gatewayPid: Int32,
                        loop: any EventLoop, logger: Logger) async throws -> GatewayFigures {
        let agent: HTTPHeaders = ["User-Agent": "waypoint-bench"]
        let load = LoadTarget(name: "gateway", address: gateway, host: Self.hostField(gateway), headers: agent,
                              sources: try LoopbackClients.sources(block: ClientBlock.load, connections: connections))

        if warmup > 0 {
            let records = try await OpenLoopLoad.run(targets: [load], plan: workload.plan(count: rate * warmup, target: 0, seed: seed ^ 0x3A3A),
                                                     rate: Double(rate), timeout: .seconds(Int64(timeout)), on: loop)
            logger.info("warm-up: \(records.plan.count) requests in \(secondsText(records.wallTime)) s, \(records.errors) errors; \(records.latencies())")
        }
        let overhead = try await measureOverhead(workload, gateway: gateway, direct: direct, loop: loop, logger: logger)

        let plan = workload.plan(count: rate * duration, target: 0, seed: seed)
        let perClient = Double(rate) / Double(connections)
        if perClient > 8 {
            logger.warning("each client sends \(String(format: "%.1f", perClient))/s: near the gateway's default per-client limit (600/min); raise --connections")
        }
        logger.info("mixed load: \(plan.count) requests at \(rate)/s over \(connections) connections (clients 127.\(ClientBlock.load).x.y)")
        let cpuBefore = ProcessResources.cpuTime()
        let records = try await OpenLoopLoad.run(targets: [load], plan: plan, rate: Double(rate), timeout: .seconds(Int64(timeout)), on: loop)
        let cpu = ProcessResources.cpuTime() - cpuBefore
        report(records, clientCPU: cpu, logger: logger)

        let (held, rss) = try await holdIdleConnections(workload, gateway: gateway, gatewayPid: gatewayPid, loop: loop, logger: logger)
        return GatewayFigures(
            rateRps: rate, durationS: duration, latencyMs: .init(records.latencies()), errors: records.errors,
            overheadP50Ms: (overhead * 100).rounded() / 100, idleConnectionsHeld: held, gatewayRssMb: (rss * 10).rounded() / 10)
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
    /// 10 % of one core over two consecutive 2-second windows.
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
            quietWindows = share < 0.1 ? quietWindows + 1 : 0
            if ContinuousClock.now - lastReport >= .seconds(15) {
                logger.info("settle: the platform uses \(String(format: "%.0f", share * 100)) % of a core (background work after the seeding)")
                lastReport = ContinuousClock.now
            }
        }
        logger.info("settle: idle after \(secondsText(ContinuousClock.now - started)) s")
    }

    /// The same requests directly to tour-management and through the gateway, alternating which goes first, at low
    /// concurrency; `Cache-Control: no-cache` makes the gateway proxy every one, and a User-Agent per path makes both
    /// copies of a detail request record their view (tour-management records one per viewer and hour). Returns
    /// p50(gateway) − p50(direct) in ms.
    private func measureOverhead(_ workload: GatewayWorkload, gateway: SocketAddress, direct: SocketAddress, loop: any EventLoop,
                                 logger: Logger) async throws -> Double {
        // Several connections per path, each its own client, so that no client goes over the gateway's per-client
        // rate limit; the arrival rate, not the number of connections, keeps the concurrency low.
        let perPath = 16
        let sources = try LoopbackClients.sources(block: ClientBlock.overhead, connections: 2 * perPath)
        func target(_ name: String, _ address: SocketAddress, _ sources: ArraySlice<SocketAddress>) -> LoadTarget {
            LoadTarget(name: name, address: address, host: Self.hostField(address),
                       headers: ["User-Agent": "waypoint-bench-\(name)", "Cache-Control": "no-cache"], sources: Array(sources))
        }
        let targets = [target("direct", direct, sources[0..<perPath]), target("gateway", gateway, sources[perPath...])]
        let drawn = workload.plan(count: overheadRequests, target: 0, seed: seed ^ 0x0E0E)
        let plan = drawn.enumerated().flatMap { index, request in
            let order = index.isMultiple(of: 2) ? [0, 1] : [1, 0]
            return order.map { PlannedRequest(target: $0, path: request.path, kind: request.kind) }
        }
        let records = try await OpenLoopLoad.run(targets: targets, plan: plan, rate: Double(overheadRate),
                                                 timeout: .seconds(Int64(timeout)), on: loop)
        let direct = records.latencies { $0.target == 0 }, proxied = records.latencies { $0.target == 1 }
        logger.info("overhead: direct \(direct)")
        logger.info("overhead: gateway \(proxied)")
        for kind in RequestKind.allCases {
            let d = records.latencies { $0.target == 0 && $0.kind == kind }, g = records.latencies { $0.target == 1 && $0.kind == kind }
            logger.info("overhead: \(kind.name) p50 direct \(String(format: "%.3f", d.percentile(0.5))) ms, gateway \(String(format: "%.3f", g.percentile(0.5))) ms")
        }
        if records.errors > 0 { logger.warning("overhead: \(records.errors) errors \(records.errorBreakdown): \(records.errorSamples(3))") }
        if records.cacheHits > 0 { logger.warning("overhead: \(records.cacheHits) answers came from the gateway's cache despite no-cache") }
        return proxied.percentile(0.5) - direct.percentile(0.5)
    }

    /// Progress lines of the mixed load: per kind, the client's own lateness and CPU, errors.
    private func report(_ records: LoadRecords, clientCPU: Duration, logger: Logger) {
        let all = records.latencies()
        logger.info("""
            mixed load: \(records.plan.count) requests, achieved \(String(format: "%.1f", records.achievedRate))/s, \
            wall \(secondsText(records.wallTime)) s; latency \(all) p90 \(String(format: "%.2f", all.percentile(0.9))) \
            p99.9 \(String(format: "%.2f", all.percentile(0.999))) ms
            """)
        for kind in RequestKind.allCases {
            logger.info("mixed load: \(kind.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(records.latencies { $0.kind == kind })")
        }
        let cpuShare = clientCPU.seconds / max(records.wallTime.seconds, 0.001) * 100
        logger.info("""
            client: send lag \(records.sendLag) (intended → written); \(records.queued) requests waited for a free \
            connection; \(records.reconnects) reconnects; CPU \(secondsText(clientCPU)) s = \(String(format: "%.0f", cpuShare)) % of one core
            """)
        let hitShare = Double(records.cacheHits) / Double(max(1, records.plan.count)) * 100
        logger.info("""
            gateway cache: \(records.cacheHits) hits (\(String(format: "%.0f", hitShare)) %): \(records.indexedLatencies { records.cacheHit[$0] }) \
            — the floor of client + gateway without an upstream; \(records.bodyBytes / 1_048_576) MiB of bodies
            """)
        if records.errors > 0 {
            logger.warning("mixed load: \(records.errors) errors \(records.errorBreakdown); e.g. \(records.errorSamples(5))")
        }
    }

    /// Opens the idle connections, holds them, checks them, and reads the gateway's RSS while they are open.
    private func holdIdleConnections(_ workload: GatewayWorkload, gateway: SocketAddress, gatewayPid: Int32, loop: any EventLoop,
                                     logger: Logger) async throws -> (held: Int, rssMebibytes: Double) {
        guard idleConnections > 0 else { return (0, ProcessResources.residentMebibytes(pid: gatewayPid) ?? 0) }
        let before = ProcessResources.residentMebibytes(pid: gatewayPid) ?? 0
        // 100 connections per client address: a household or an office behind one address, well under the per-IP limit.
        let target = LoadTarget(name: "gateway", address: gateway, host: Self.hostField(gateway), headers: ["User-Agent": "waypoint-bench-idle"],
                                sources: try LoopbackClients.sources(block: ClientBlock.idle, connections: idleConnections, perClient: 100))
        let paths = workload.corpus.destinations.prefix(20).map { "/v1/destinations?prefix=\(GatewayWorkload.encoded(String($0.city.name.prefix(4))))&limit=10" }
        let probe = try await IdleConnectionsProbe.make(target: target, paths: paths, timeout: .seconds(Int64(timeout)), on: loop)
        let started = ContinuousClock.now
        let opened = try await IdleConnectionsProbe.open(probe, parallel: 256)
        logger.info("""
            idle: \(opened.served) of \(opened.attempted) connections answered their first request in \
            \(secondsText(ContinuousClock.now - started)) s\(opened.failures.isEmpty ? "" : "; failures \(opened.failures)")
            """)
        try await Task.sleep(for: .seconds(idleHold))
        let checked = try await IdleConnectionsProbe.check(probe, sample: idleSample)
        let rss = ProcessResources.residentMebibytes(pid: gatewayPid) ?? 0
        logger.info("""
            idle: after \(idleHold) s \(checked.open) still open; second request answered on \(checked.sampleAnswered) of \
            \(checked.sampled) sampled; gateway RSS \(String(format: "%.1f", before)) → \(String(format: "%.1f", rss)) MiB \
            (peak \(ProcessResources.statusKibibytes("VmHWM", pid: gatewayPid).map { String($0 / 1_024) } ?? "?") MiB)
            """)
        try await IdleConnectionsProbe.close(probe)
        return (checked.held, rss)
    }

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
