import Foundation
import Hummingbird
import NIOCore
import ServiceKit

/// The gateway's own operational routes: `/health/live`, `/health/ready` (its own checks and every upstream's
/// readiness), `/metrics` and `/openapi.yaml`.
struct GatewayOperationalRoutes {
    /// The body of the gateway's `/health/ready`.
    struct ReadinessBody: Codable, Sendable {
        /// `ready`, `not-ready` or `draining`.
        var status: String
        /// The gateway's own checks (e.g. the push stream's consumer).
        var checks: [ReadinessReport.Check]
        /// Every upstream service.
        var services: [UpstreamHealth.ServiceStatus]
    }

    let readiness: Readiness
    let health: UpstreamHealth
    let metrics: ServiceMetrics
    let upstreams: UpstreamPool
    let openAPI: OpenAPIDocument

    func add(to router: Router<ServiceRequestContext>) {
        router.get("/health/live") { _, _ in
            OperationalResponse.text(#"{"status":"live"}"#, contentType: "application/json", status: .ok)
        }
        router.get("/health/ready") { [readiness, health] _, _ in
            async let services = health.check()
            let local = await readiness.evaluate()
            let upstreams = await services
            let requiredDown = upstreams.contains { $0.required && $0.status != "ready" }
            let status = local.status == "draining" ? "draining" : (local.isReady && !requiredDown ? "ready" : "not-ready")
            let body = ReadinessBody(status: status, checks: local.checks, services: upstreams)
            return try OperationalResponse.json(body, status: status == "ready" ? .ok : .serviceUnavailable)
        }
        router.get("/metrics") { [metrics, upstreams] _, _ in
            for upstream in upstreams.upstreams.values {
                metrics.gauge("gateway_circuit_open", labels: [("upstream", upstream.name)])
                    .record(upstream.breaker.state == .closed ? 0 : 1)
            }
            return OperationalResponse.text(metrics.exposition(), contentType: "text/plain; version=0.0.4; charset=utf-8", status: .ok)
        }
        router.get("/openapi.yaml") { [openAPI] _, _ in
            OperationalResponse.text(openAPI.yaml, contentType: OpenAPIDocument.mediaType, status: .ok)
        }
    }
}
