import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The routes every service has besides its own: health, metrics and the OpenAPI document.
struct OperationalRoutes {
    let readiness: Readiness
    let metrics: ServiceMetrics
    let openAPI: OpenAPIDocument?

    /// Adds `/health/live`, `/health/ready`, `/metrics` and (when given) `/openapi.yaml`.
    func add(to router: Router<ServiceRequestContext>) {
        router.get("/health/live") { _, _ in
            OperationalResponse.text(#"{"status":"live"}"#, contentType: "application/json", status: .ok)
        }
        router.get("/health/ready") { [readiness] _, _ in
            let report = await readiness.evaluate()
            return try OperationalResponse.json(report, status: report.isReady ? .ok : .serviceUnavailable)
        }
        router.get("/metrics") { [metrics] _, _ in
            OperationalResponse.text(metrics.exposition(), contentType: "text/plain; version=0.0.4; charset=utf-8", status: .ok)
        }
        if let openAPI {
            router.get("/openapi.yaml") { _, _ in
                OperationalResponse.text(openAPI.yaml, contentType: OpenAPIDocument.mediaType, status: .ok)
            }
        }
    }
}
