import Foundation
import PathReview
import ServiceKit
import ServiceTesting
import Testing

@Suite("path-review: the OpenAPI document")
struct PathReviewOpenAPITests {
    static let document = "Services/PathReview/Sources/openapi.yaml"

    @Test("the file is OpenAPI 3.1, loads as YAML, and documents exactly the routes the running service's router has, each once")
    func documentsEveryRoute() async throws {
        let yaml = try OpenAPIText.document(Self.document)
        #expect(yaml.hasPrefix("openapi: 3.1."))
        let documented = OpenAPIText.routes(in: yaml)
        #expect(documented.count == Set(documented).count, "a route is documented twice")
        let table = Captured<[OpenAPIRoute]>([])
        try await PathReviewApp.with { _, server in
            let app = try server.application(metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: PathReviewApp.quiet)
            table.value = app.routeTable.map { OpenAPIRoute($0.method, $0.path) }
        }
        let served = table.value
        #expect(served.count >= 7)
        let missing = Set(served).subtracting(documented).map(\.description).sorted()
        let extra = Set(documented).subtracting(served).map(\.description).sorted()
        #expect(missing.isEmpty, "routes the service has but openapi.yaml does not document: \(missing)")
        #expect(extra.isEmpty, "routes openapi.yaml documents but the service does not have: \(extra)")
    }

    @Test("the street routes document 422 (the list) and 404 (one street)")
    func documentsStatuses() throws {
        let operations = OpenAPIText.operations(in: try OpenAPIText.document(Self.document))
        for (route, text) in operations where route.path.hasPrefix("/v1/streets") {
            let statuses = OpenAPIText.statuses(in: text)
            #expect(statuses.contains(route.path.contains("{") ? "404" : "422"), "\(route): \(statuses.sorted())")
        }
    }
}
