import Foundation
import ServiceKit

/// The gateway: the single public entry point of the platform (routing, edge auth, rate limits, caching, push).
public enum GatewayService {
    /// The service's name in configuration keys, logs and metrics.
    public static let name = "gateway"

    /// The gateway's own OpenAPI 3.1 document (`openapi.yaml`, a resource of this target).
    public static let openAPI: OpenAPIDocument = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
              let yaml = try? String(contentsOf: url, encoding: .utf8)
        else { return OpenAPIDocument(yaml: "openapi: 3.1.0\n") }
        return OpenAPIDocument(yaml: yaml)
    }()
}
