import Foundation
import ServiceKit

/// The gateway: the single public entry point of the platform (routing, edge auth, rate limits, caching, push).
public enum GatewayService {
    /// The service's name in configuration keys, logs and metrics.
    public static let name = "gateway"

    /// The gateway's own OpenAPI 3.1 document (`openapi.yaml`, a resource of this target); a bare `openapi: 3.1.0`
    /// document if the resource is missing, so the gateway still starts.
    public static let openAPI: OpenAPIDocument =
        (try? OpenAPIDocument.bundled(in: .module, service: name)) ?? OpenAPIDocument(yaml: "openapi: 3.1.0\n")
}
