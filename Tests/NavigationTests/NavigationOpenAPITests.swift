import Foundation
import Navigation
import ServiceKit
import ServiceTesting
import Testing

@Suite("navigation: the OpenAPI document")
struct NavigationOpenAPITests {
    static let document = "Services/Navigation/Sources/openapi.yaml"

    @Test("the file is OpenAPI 3.1, loads as YAML, and documents exactly the routes the running service's router has, each once")
    func documentsEveryRoute() async throws {
        let yaml = try OpenAPIText.document(Self.document)
        #expect(yaml.hasPrefix("openapi: 3.1."))
        let documented = OpenAPIText.routes(in: yaml)
        #expect(documented.count == Set(documented).count, "a route is documented twice")
        let table = Captured<[OpenAPIRoute]>([])
        try await NavigationApp.with { _, server, _ in
            let app = try server.application(metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: NavigationApp.quiet)
            table.value = app.routeTable.map { OpenAPIRoute($0.method, $0.path) }
        }
        let served = table.value
        #expect(served.count >= 8)
        let missing = Set(served).subtracting(documented).map(\.description).sorted()
        let extra = Set(documented).subtracting(served).map(\.description).sorted()
        #expect(missing.isEmpty, "routes the service has but openapi.yaml does not document: \(missing)")
        #expect(extra.isEmpty, "routes openapi.yaml documents but the service does not have: \(extra)")
    }

    @Test("every session route documents 401, every route with a path id 404")
    func documentsStatuses() throws {
        let operations = OpenAPIText.operations(in: try OpenAPIText.document(Self.document))
        for (route, text) in operations where route.path.hasPrefix("/v1/navigation") {
            let statuses = OpenAPIText.statuses(in: text)
            #expect(statuses.contains("401"), "\(route): \(statuses.sorted())")
            if route.path.contains("{id}") { #expect(statuses.contains("404"), "\(route): \(statuses.sorted())") }
        }
    }

    @Test("the places routes document 401, and those taking a body 400, 413 and 422; those naming a place 404")
    func documentsPlacesStatuses() throws {
        let operations = OpenAPIText.operations(in: try OpenAPIText.document(Self.document))
        let places = operations.filter { $0.key.path.hasPrefix("/v1/places") }
        #expect(places.count == 8)
        for (route, text) in places {
            let statuses = OpenAPIText.statuses(in: text)
            #expect(statuses.contains("401"), "\(route)")
            if ["post", "patch"].contains(route.method) { #expect(statuses.isSuperset(of: ["400", "413", "422"]), "\(route): \(statuses.sorted())") }
            if route.path.contains("{id}") { #expect(statuses.contains("404"), "\(route): \(statuses.sorted())") }
        }
    }
}
