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

    /// Found by the contract fuzzer (docs/contract-fuzzing.md), closed as classes: what ServiceKit and the authoring
    /// routes answer for every operation of a kind is documented on every operation of that kind.
    @Test("every operation documents the statuses its kind always can give: If-Match, JSON bodies, ids in the path")
    func documentsEveryStatusOfItsKind() throws {
        let operations = OpenAPIText.operations(in: try OpenAPIText.document("Services/TourManagement/Sources/openapi.yaml"))
        #expect(operations.count > 50)
        for (route, text) in operations {
            let statuses = OpenAPIText.statuses(in: text)
            if text.contains("#/components/parameters/IfMatch") {
                // 400 bad-if-match for anything but a version, 412 version-mismatch for an old one.
                #expect(statuses.isSuperset(of: ["400", "412"]), "\(route) takes If-Match: \(statuses.sorted())")
            }
            let body = text.components(separatedBy: "responses:").first ?? ""
            // The webhook reads its raw bytes (for the signature): no JSON decoding, so no 415 or 422.
            if body.contains("requestBody:"), body.contains("application/json:"), route != OpenAPIRoute("post", "/v1/payments/webhook") {
                // malformed-json, payload-too-large, unsupported-media-type, invalid-field.
                #expect(statuses.isSuperset(of: ["400", "413", "415", "422"]), "\(route) takes a JSON body: \(statuses.sorted())")
            }
            // Removing a favourite is 204 for anything that is not one, an unknown tour included.
            if route.path.contains("{"), route != OpenAPIRoute("delete", "/v1/me/favourites/{tourId}") {
                #expect(statuses.contains("404"), "\(route) names a resource: \(statuses.sorted())")
            }
        }
    }
}
