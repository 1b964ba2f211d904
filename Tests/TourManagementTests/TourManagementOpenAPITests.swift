import Foundation
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: the OpenAPI document")
struct TourManagementOpenAPITests {
    @Test("the file is OpenAPI 3.1 and documents exactly the routes the running service's router has, each once")
    func documentsEveryRoute() async throws {
        let yaml = try OpenAPIText.document("Services/TourManagement/Sources/openapi.yaml")
        #expect(yaml.hasPrefix("openapi: 3.1."))
        let documented = OpenAPIText.routes(in: yaml)
        #expect(documented.count == Set(documented).count, "a route is documented twice")
        let served = try await TourAuthoringRoutesTests.routeTable().map { OpenAPIRoute($0.method, $0.path) }
        #expect(served.count > 20)
        let missing = Set(served).subtracting(documented).map(\.description).sorted()
        let extra = Set(documented).subtracting(served).map(\.description).sorted()
        #expect(missing.isEmpty, "routes the service has but openapi.yaml does not document: \(missing)")
        #expect(extra.isEmpty, "routes openapi.yaml documents but the service does not have: \(extra)")
    }
}
