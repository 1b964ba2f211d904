import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceKit
import Testing
import TourManagement

@Suite("tour-management: GET /v1/destinations")
struct DestinationRoutesTests {
    static func withApp(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let index = DestinationIndexTests.loaded.index
        let app = try ServiceApplication(
            configuration: ServiceConfiguration(serviceName: "tour-management", port: 0, logLevel: .warning),
            metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:])
        ) { routes in
            DestinationRoutes(index: index).addRoutes(to: routes.group("/v1/destinations"))
        }
        try await app.test(.router) { client in try await body(client) }
    }

    static func json(_ response: TestResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
    }

    @Test("prefix search, detail, near and popular answer JSON with attribution; bad parameters are 422 with field errors")
    func routes() async throws {
        try await Self.withApp { client in
            let list = try await client.execute(uri: "/v1/destinations?prefix=Z%C3%BCrich", method: .get)
            #expect(list.status == .ok)
            let destinations = try #require(Self.json(list)["destinations"] as? [[String: Any]])
            #expect(destinations.prefix(2).compactMap { $0["name"] as? String }.allSatisfy { DestinationName.key($0) == "zurich" })
            #expect(destinations.contains { $0["name"] as? String == "Zürich" })
            #expect((Self.json(list)["attribution"] as? String)?.contains("GeoNames") == true)
            let id = try #require(destinations.first?["id"] as? Int)
            let detail = try await client.execute(uri: "/v1/destinations/\(id)", method: .get)
            #expect(detail.status == .ok)
            #expect(try await client.execute(uri: "/v1/destinations/999999999999", method: .get).status == .notFound)
            let near = try await client.execute(uri: "/v1/destinations/near?lat=48.2082&lng=16.3738&limit=3", method: .get)
            let nearby = try #require(Self.json(near)["destinations"] as? [[String: Any]])
            #expect(nearby.count == 3)
            #expect(try await client.execute(uri: "/v1/destinations/popular", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/v1/destinations?prefix=a", method: .get).status == .ok)

            for uri in ["/v1/destinations", "/v1/destinations?prefix=", "/v1/destinations?prefix=a&limit=500",
                        "/v1/destinations/near?lat=91&lng=0", "/v1/destinations/near?lat=10&lng=abc", "/v1/destinations/near"] {
                let bad = try await client.execute(uri: uri, method: .get)
                #expect(bad.status == .unprocessableContent, "\(uri)")
                #expect(bad.headers[.contentType] == "application/problem+json")
            }
        }
    }
}
