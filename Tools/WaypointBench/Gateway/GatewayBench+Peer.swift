import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// What a proxy costs per proxied request, measured side by side with the others at concurrency 1.
struct ProxyCost: Encodable, Sendable, Equatable {
    /// p50 through the proxy − p50 directly, same requests, ms to 0.001.
    var addedP50Ms: Double
    /// The proxy process's CPU time (user + system, `/proc/<pid>/stat`) while it served its requests, less its
    /// background (its CPU per second while the other paths were served, over the time it served), divided by them,
    /// µs to 0.1.
    var cpuUsPerRequest: Double

    private enum CodingKeys: String, CodingKey {
        case addedP50Ms = "added_p50_ms", cpuUsPerRequest = "cpu_us_per_request"
    }
}

/// The peer phase's figures (issue 23): the gateway's cost (`proxy`), nginx's (`peer.nginx`) and gateway ÷ nginx (`ratio`).
struct ProxyComparison: Encodable, Sendable {
    struct Peers: Encodable, Sendable {
        var nginx: ProxyCost
    }

    struct Ratio: Encodable, Sendable {
        /// Gateway's added p50 ÷ nginx's, to 0.01 (the target is ≤ 2).
        var addedP50: Double
        /// Gateway's CPU per request ÷ nginx's, to 0.01 (the target is ≤ 2).
        var cpu: Double

        private enum CodingKeys: String, CodingKey {
            case addedP50 = "added_p50", cpu
        }
    }

    var proxy: ProxyCost
    var peer: Peers
    var ratio: Ratio

    init(gateway: ProxyCost, nginx: ProxyCost) {
        proxy = gateway
        peer = Peers(nginx: nginx)
        func ratio(_ a: Double, _ b: Double) -> Double { b > 0 ? (a / b * 100).rounded() / 100 : 0 }
        self.ratio = Ratio(addedP50: ratio(gateway.addedP50Ms, nginx.addedP50Ms), cpu: ratio(gateway.cpuUsPerRequest, nginx.cpuUsPerRequest))
    }
}

extension GatewayBench {
    /// Requests of one block: a block goes to one path (direct, gateway or nginx) at a time, and the proxy's CPU is read
    /// before and after it.
    static let peerBlock = 50
    /// Connections (= client addresses) per path of the peer phase.
    static let peerConnectionsPerPath = 16

    /// The peer phase: nginx started in front of the same tour-management; the same `--peer-requests` requests of the
    /// tours mix, with `Cache-Control: no-cache`, sent directly, through the gateway and through nginx at concurrency 1,
    /// in blocks of ``peerBlock`` whose order rotates; each proxy's CPU counted over its own blocks.
    func measureProxyPeers(_ workload: GatewayWorkload, gateway: SocketAddress, gatewayPid: Int32, direct: SocketAddress, parent: URL,
                           loop: any EventLoop, logger: Logger) async throws -> ProxyComparison {
        let nginx = try await NginxPeer.start(upstream: direct, parent: parent, logger: logger)
        do {
            let figures = try await comparePeers(workload, gateway: gateway, gatewayPid: gatewayPid, direct: direct, nginx: nginx, loop: loop, logger: logger)
            await nginx.stop()
            return figures
        } catch {
            await nginx.stop()
            throw error
        }
    }

    private func comparePeers(_ workload: GatewayWorkload, gateway: SocketAddress, gatewayPid: Int32, direct: SocketAddress, nginx: NginxPeer,
                              loop: any EventLoop, logger: Logger) async throws -> ProxyComparison {
        let perPath = Self.peerConnectionsPerPath
        let sources = try LoopbackClients.sources(block: ClientBlock.peer, connections: 3 * perPath)
        func target(_ name: String, _ address: SocketAddress, _ index: Int) -> LoadTarget {
            LoadTarget(name: name, address: address, host: Self.hostField(address),
                       headers: ["User-Agent": "waypoint-bench-peer-\(name)", "Cache-Control": "no-cache"],
                       sources: Array(sources[(index * perPath)..<((index + 1) * perPath)]))
        }
        let names = ["direct", "gateway", "nginx"]
        let targets = [target(names[0], direct, 0), target(names[1], gateway, 1), target(names[2], nginx.address, 2)]
        let cpu: [(() -> Duration)?] = [nil, { ProcessResources.cpuTime(pid: gatewayPid) ?? .zero }, { nginx.cpuTime() }]
        var senders: [NIOLoopBound<SequentialSender>] = []
        for target in targets { senders.append(try await SequentialSender.open(target, on: loop)) }
        defer { for sender in senders { Task { try? await SequentialSender.close(sender) } } }
        let timeout = TimeAmount.seconds(Int64(self.timeout))

        // Warm-up: other requests of the mix, each path, not measured.
        let warm = workload.plan(count: min(300, peerRequests), target: 0, seed: seed ^ 0x5A5A).map(\.path)
        for sender in senders { _ = try await SequentialSender.send(sender, warm, timeout: timeout) }

        let paths = workload.plan(count: peerRequests, target: 0, seed: seed ^ 0x9E9E).map(\.path)
        var latencies = targets.map { _ in Latencies(resolution: 0.001) }
        // Per proxy: its CPU and the wall time during its own blocks, and during the other paths' blocks (its
        // background: the gateway follows tour-management's events — the views the detail requests of every path
        // record — and the other proxies' requests cause as much of that as its own).
        var cpuUsed = targets.map { _ in Duration.zero }, ownTime = targets.map { _ in Duration.zero }
        var idleCPU = targets.map { _ in Duration.zero }, idleTime = targets.map { _ in Duration.zero }
        var errors = targets.map { _ in 0 }, hits = 0
        let hostBefore = ProcessResources.hostCPU()
        let started = ContinuousClock.now
        for (round, start) in stride(from: 0, to: paths.count, by: Self.peerBlock).enumerated() {
            let block = Array(paths[start..<min(paths.count, start + Self.peerBlock)])
            // Every order of the three paths in turn, so none is always first after the other two.
            let orders = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [2, 1, 0], [1, 0, 2]]
            for t in orders[round % orders.count] {
                let before = cpu.map { $0?() }, blockStart = ContinuousClock.now
                let exchanges = try await SequentialSender.send(senders[t], block, timeout: timeout)
                let blockTime = ContinuousClock.now - blockStart
                for p in targets.indices {
                    guard let before = before[p], let after = cpu[p]?() else { continue }
                    if p == t {
                        cpuUsed[p] += after - before
                        ownTime[p] += blockTime
                    } else {
                        idleCPU[p] += after - before
                        idleTime[p] += blockTime
                    }
                }
                for exchange in exchanges {
                    latencies[t].record(.nanoseconds(exchange.nanoseconds))
                    if exchange.status.map({ $0 >= 400 }) ?? true { errors[t] += 1 }
                    if exchange.cacheHit { hits += 1 }
                }
            }
        }
        let wall = ContinuousClock.now - started
        /// The proxy's CPU in its own blocks less its background rate (CPU per second in the other paths' blocks) over their length.
        func netCPU(_ t: Int) -> Duration {
            let rate = idleTime[t] > .zero ? idleCPU[t].seconds / idleTime[t].seconds : 0
            return max(.zero, cpuUsed[t] - .seconds(rate * ownTime[t].seconds))
        }
        for (t, name) in names.enumerated() {
            let p = latencies[t]
            let cpuText = cpu[t] == nil ? "" : """
                , CPU \(String(format: "%.1f", netCPU(t).seconds * 1e6 / Double(paths.count))) µs/request net of its background \
                (\(secondsText(cpuUsed[t])) s in its blocks of \(secondsText(ownTime[t])) s; background \
                \(String(format: "%.1f", idleTime[t] > .zero ? idleCPU[t].seconds / idleTime[t].seconds * 100 : 0)) % of a core in the others' \
                \(secondsText(idleTime[t])) s)
                """
            logger.info("""
                peer: \(name.padding(toLength: 7, withPad: " ", startingAt: 0)) p50 \(String(format: "%.3f", p.percentile(0.5))) ms, \
                p90 \(String(format: "%.3f", p.percentile(0.9))) ms, p99 \(String(format: "%.3f", p.percentile(0.99))) ms\
                \(cpuText)\(errors[t] > 0 ? ", \(errors[t]) errors" : "")
                """)
        }
        let loadAverage = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        logger.info("peer: \(paths.count) requests per path in \(secondsText(wall)) s; load average \(loadAverage)\(Self.steal(since: hostBefore))")
        if hits > 0 { logger.warning("peer: \(hits) answers came from the gateway's cache despite no-cache") }
        if errors.contains(where: { $0 > 0 }) { throw BenchError("peer: failed requests (direct, gateway, nginx): \(errors)") }
        func cost(_ t: Int) -> ProxyCost {
            ProxyCost(addedP50Ms: ((latencies[t].percentile(0.5) - latencies[0].percentile(0.5)) * 1_000).rounded() / 1_000,
                      cpuUsPerRequest: (netCPU(t).seconds * 1e7 / Double(paths.count)).rounded() / 10)
        }
        return ProxyComparison(gateway: cost(1), nginx: cost(2))
    }
}
