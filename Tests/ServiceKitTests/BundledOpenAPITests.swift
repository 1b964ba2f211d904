import Foundation
import ServiceKit
import ServiceTesting
import Testing

@Suite("The bundled openapi.yaml")
struct BundledOpenAPITests {
    @Test("is read verbatim from the target's resource bundle")
    func readsTheResource() throws {
        let directory = TemporaryDirectory("bundled-openapi")
        defer { directory.remove() }
        let yaml = "openapi: 3.1.0\ninfo:\n  title: demo\n  version: 1.0.0\npaths: {}\n"
        try Data(yaml.utf8).write(to: directory.url.appendingPathComponent("openapi.yaml"))
        let bundle = try #require(Bundle(path: directory.url.path))
        #expect(try OpenAPIDocument.bundled(in: bundle, service: "demo") == OpenAPIDocument(yaml: yaml))
    }

    @Test("a bundle without it is a configuration error naming the service")
    func missingResource() throws {
        let directory = TemporaryDirectory("bundled-openapi")
        defer { directory.remove() }
        let bundle = try #require(Bundle(path: directory.url.path))
        #expect(throws: ConfigurationError(key: "openapi.yaml", value: "missing", expected: "the demo OpenAPI document in the bundle")) {
            try OpenAPIDocument.bundled(in: bundle, service: "demo")
        }
    }
}
