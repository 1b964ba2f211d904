#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The service's OpenAPI 3.1 description, served verbatim at `/openapi.yaml` as `application/yaml`.
public struct OpenAPIDocument: Sendable, Equatable {
    /// The media type it is served with.
    public static let mediaType = "application/yaml"

    /// The YAML text.
    public let yaml: String

    /// A document from YAML text (e.g. a string resource compiled into the service).
    public init(yaml: String) {
        self.yaml = yaml
    }

    /// A document read once from a file, e.g. `deploy/openapi/tour-management.yaml`.
    public init(contentsOfFile path: String) throws {
        self.yaml = try String(contentsOfFile: path, encoding: .utf8)
    }
}
