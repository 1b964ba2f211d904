import Foundation
import Logging
import NIOCore
import NIOHTTP1

extension GatewayBench {
    /// The mixed load through the gateway: its records, with the client's own figures and the platform's CPU on stderr.
    func runMixedLoad(_ workload: GatewayWorkload, target: LoadTarget, processes: [(String, Int32)], loop: any EventLoop,
                      logger: Logger) async throws -> LoadRecords {
        let plan = workload.plan(count: rate * duration, target: 0, seed: seed)
        let perClient = Double(rate) / Double(connections)
        if perClient > 8 {
            logger.warning("each client sends \(String(format: "%.1f", perClient))/s: near the gateway's default per-client limit (600/min); raise --connections")
        }
        logger.info("mixed load: \(plan.count) requests at \(rate)/s over \(connections) connections (clients 127.\(ClientBlock.load).x.y)")
        let cpuBefore = ProcessResources.cpuTime()
        let platform = PlatformCPU(processes)
        let records = try await OpenLoopLoad.run(targets: [target], plan: plan, rate: Double(rate), timeout: .seconds(Int64(timeout)), on: loop)
        report(records, clientCPU: ProcessResources.cpuTime() - cpuBefore, logger: logger)
        logger.info("platform CPU during the load (share of one core): \(platform.shares(over: records.wallTime))")
        return records
    }

    /// The platform's processes' CPU time from a start, and the host's, for the line after a load.
    struct PlatformCPU {
        let processes: [(String, Int32)]
        let before: [Duration]
        let hostBefore: ProcessResources.HostCPU?

        init(_ processes: [(String, Int32)]) {
            self.processes = processes
            before = processes.map { ProcessResources.cpuTime(pid: $0.1) ?? .zero }
            hostBefore = ProcessResources.hostCPU()
        }

        /// `name N %, …; load average …; host steal …`: each process's CPU since the start as a share of one core over `wall`.
        func shares(over wall: Duration) -> String {
            let shares = zip(processes, before).map { process, before in
                let used = (ProcessResources.cpuTime(pid: process.1) ?? before) - before
                return "\(process.0) \(String(format: "%.0f", used.seconds / max(wall.seconds, 0.001) * 100)) %"
            }
            let loadAverage = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
            return "\(shares.joined(separator: ", ")); load average \(loadAverage) on \(ProcessInfo.processInfo.activeProcessorCount) cores"
                + GatewayBench.steal(since: hostBefore)
        }
    }

    /// The same requests directly to tour-management and through the gateway, alternating which goes first, at low
    /// concurrency; `Cache-Control: no-cache` makes the gateway proxy every one, and a User-Agent per path makes both
    /// copies of a detail request record their view (tour-management records one per viewer and hour). Returns
    /// p50(gateway) − p50(direct) in ms.
    func measureOverhead(_ workload: GatewayWorkload, gateway: SocketAddress, direct: SocketAddress, loop: any EventLoop,
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
        let hostBefore = ProcessResources.hostCPU()
        let records = try await OpenLoopLoad.run(targets: targets, plan: plan, rate: Double(overheadRate),
                                                 timeout: .seconds(Int64(timeout)), on: loop)
        let direct = records.latencies { $0.target == 0 }, proxied = records.latencies { $0.target == 1 }
        logger.info("overhead: direct \(direct)\(Self.steal(since: hostBefore))")
        logger.info("overhead: gateway \(proxied)")
        for kind in RequestKind.allCases {
            let d = records.latencies { $0.target == 0 && $0.requestKind == kind }, g = records.latencies { $0.target == 1 && $0.requestKind == kind }
            logger.info("overhead: \(kind.name) p50 direct \(String(format: "%.3f", d.percentile(0.5))) ms, gateway \(String(format: "%.3f", g.percentile(0.5))) ms")
        }
        if records.errors > 0 { logger.warning("overhead: \(records.errors) errors \(records.errorBreakdown): \(records.errorSamples(3))") }
        if records.cacheHits > 0 { logger.warning("overhead: \(records.cacheHits) answers came from the gateway's cache despite no-cache") }
        return proxied.percentile(0.5) - direct.percentile(0.5)
    }

    /// `; host steal N %` since `before`: CPU time the hypervisor gave to other guests while this machine wanted it (a
    /// busy shared host slows every figure, the direct calls included); empty without `/proc/stat`.
    static func steal(since before: ProcessResources.HostCPU?) -> String {
        guard let before, let now = ProcessResources.hostCPU() else { return "" }
        return "; host steal \(String(format: "%.1f", now.stealPercent(since: before))) % of CPU time"
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
            logger.info("mixed load: \(kind.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(records.latencies { $0.requestKind == kind })")
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
    func holdIdleConnections(_ workload: GatewayWorkload, gateway: SocketAddress, gatewayPid: Int32, loop: any EventLoop,
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
}
