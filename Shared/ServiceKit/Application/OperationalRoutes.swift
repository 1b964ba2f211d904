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
            Self.text(#"{"status":"live"}"#, contentType: "application/json", status: .ok)
        }
        router.get("/health/ready") { [readiness] _, _ in
            let report = await readiness.evaluate()
            let body = try Self.encoder.encode(report)
            return Self.text(String(decoding: body, as: UTF8.self), contentType: "application/json", status: report.isReady ? .ok : .serviceUnavailable)
        }
        router.get("/metrics") { [metrics] _, _ in
            Self.text(metrics.exposition(), contentType: "text/plain; version=0.0.4; charset=utf-8", status: .ok)
        }
        if let openAPI {
            router.get("/openapi.yaml") { _, _ in
                Self.text(openAPI.yaml, contentType: OpenAPIDocument.mediaType, status: .ok)
            }
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static func text(_ text: String, contentType: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
