import Foundation
import ServiceTesting
import Testing

@Suite("tour-management: the OpenAPI document")
struct TourManagementOpenAPITests {
    /// Every route tour-management serves. Update it with the routes (and the document with it).
    static let routes: [OpenAPIRoute] = [
        OpenAPIRoute("get", "/v1/destinations"),
        OpenAPIRoute("get", "/v1/destinations/popular"),
        OpenAPIRoute("get", "/v1/destinations/near"),
        OpenAPIRoute("get", "/v1/destinations/{id}"),
        OpenAPIRoute("post", "/v1/tours"),
        OpenAPIRoute("delete", "/v1/tours/{id}"),
        OpenAPIRoute("put", "/v1/tours/{id}/details"),
        OpenAPIRoute("post", "/v1/tours/{id}/stops"),
        OpenAPIRoute("put", "/v1/tours/{id}/stops/order"),
        OpenAPIRoute("put", "/v1/tours/{id}/stops/{stopId}"),
        OpenAPIRoute("delete", "/v1/tours/{id}/stops/{stopId}"),
        OpenAPIRoute("post", "/v1/tours/{id}/stops/{stopId}/media"),
        OpenAPIRoute("post", "/v1/tours/{id}/publish"),
        OpenAPIRoute("post", "/v1/tours/{id}/unpublish"),
        OpenAPIRoute("get", "/v1/guides/me/tours"),
        OpenAPIRoute("get", "/v1/guides/me/tours/{id}"),
        OpenAPIRoute("post", "/v1/media"),
        OpenAPIRoute("get", "/v1/media/{sha256}"),
        OpenAPIRoute("get", "/v1/internal/events"),
        OpenAPIRoute("get", "/health/live"),
        OpenAPIRoute("get", "/health/ready"),
        OpenAPIRoute("get", "/metrics"),
        OpenAPIRoute("get", "/openapi.yaml"),
    ]

    @Test("the file is OpenAPI 3.1 and documents exactly the routes the service has, each once")
    func documentsEveryRoute() throws {
        let yaml = try OpenAPIText.document("Services/TourManagement/Sources/openapi.yaml")
        #expect(yaml.hasPrefix("openapi: 3.1."))
        let documented = OpenAPIText.routes(in: yaml)
        #expect(documented.count == Set(documented).count, "a route is documented twice")
        #expect(Set(documented) == Set(Self.routes), "missing: \(Set(Self.routes).subtracting(documented)); extra: \(Set(documented).subtracting(Self.routes))")
    }
}
