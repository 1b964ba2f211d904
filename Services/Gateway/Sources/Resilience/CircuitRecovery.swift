import AsyncHTTPClient
import Logging
import NIOCore
import ServiceLifecycle

/// Closes an upstream's open circuit as soon as the service reports itself ready: while a circuit is open or
/// half-open, the service's `/health/ready` is asked every ``interval``; a 200 closes it (``CircuitBreaker/closeBecauseReady()``).
///
/// Without it a service restarted in 5 s stayed unrouted for the whole open period (30 s); with it, a restarted service
/// is routed again within ``interval`` plus one readiness answer of becoming ready. Closed circuits cost nothing:
/// only open ones are asked about.
struct CircuitRecovery: Service {
    let upstreams: UpstreamPool
    let logger: Logger
    /// How often an open circuit's service is asked.
    var interval: Duration = .milliseconds(500)
    /// How long one readiness answer may take.
    var timeout: Duration = .seconds(1)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await withTaskGroup(of: Void.self) { group in
                    for upstream in upstreams.upstreams.values where upstream.breaker.state != .closed {
                        group.addTask { await check(upstream) }
                    }
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Asks `upstream` whether it is ready; closes its circuit when it is.
    func check(_ upstream: Upstream) async {
        let request = HTTPClientRequest(url: upstream.baseURL + "/health/ready")
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        guard let response = try? await upstream.client.execute(request, deadline: .now() + .milliseconds(milliseconds)) else { return }
        _ = try? await response.body.collect(upTo: 64 << 10)
        if response.status == .ok, upstream.breaker.closeBecauseReady() {
            logger.notice("circuit closed: the service is ready again", metadata: ["upstream": .string(upstream.name)])
        }
    }
}
