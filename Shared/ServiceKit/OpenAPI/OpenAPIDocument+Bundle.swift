import Foundation

extension OpenAPIDocument {
    /// The `openapi.yaml` a service ships as a resource of its target (`resources: [.copy("openapi.yaml")]` in
    /// `Package.swift`), read once at start-up: `try OpenAPIDocument.bundled(in: .module, service: "auth")`.
    ///
    /// - Parameters:
    ///   - bundle: The target's resource bundle (`Bundle.module` in the service's own module).
    ///   - service: The service's name, for the error when the file is missing.
    /// - Throws: ``ConfigurationError`` when the bundle holds no `openapi.yaml`; the file system's error when it cannot
    ///   be read.
    public static func bundled(in bundle: Bundle, service: String) throws -> OpenAPIDocument {
        guard let url = bundle.url(forResource: "openapi", withExtension: "yaml") else {
            throw ConfigurationError(key: "openapi.yaml", value: "missing", expected: "the \(service) OpenAPI document in the bundle")
        }
        return try OpenAPIDocument(contentsOfFile: url.path)
    }
}
