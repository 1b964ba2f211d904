import Foundation
import Gateway
import GatewayNotifications
import Hummingbird
import Messaging
import ServiceTesting
import Testing

@Suite("The gateway's own routes: health, readiness of the services, metrics, OpenAPI")
struct OperationalRoutesTests {
    struct ReadinessBody: Decodable {
        struct Service: Decodable { var name: String; var required: Bool; var status: String }
        var status: String
        var services: [Service]
        func status(of name: String) -> String? { services.first { $0.name == name }?.status }
    }

    static func ready(_ ready: Bool = true) -> StandIn {
        StandIn {
            let router = Router()
            router.get("/health/ready") { _, _ in Response(status: ready ? .ok : .serviceUnavailable) }
            return router
        }
    }

    @Test("/health/ready lists every service; one not built yet is absent, not failing")
    func readyWithAbsentServices() async throws {
        let down = try closedPort()
        try await GatewayHarness.run(upstreams: ["auth": Self.ready(), "tour-management": Self.ready(), "analytics": Self.ready()], configure: { configuration in
            configuration.endpoints.baseURLs["path-review"] = URL(string: "http://127.0.0.1:\(down)")!
        }) { (gateway: GatewayHarness) async throws in
            let answer = try await gateway.send(.GET, "/health/ready")
            #expect(answer.status == 200)
            let body = try answer.json(ReadinessBody.self)
            #expect(body.status == "ready")
            #expect(body.status(of: "auth") == "ready")
            #expect(body.status(of: "path-review") == "absent")
            #expect(body.status(of: "navigation") == "unconfigured")
            #expect(body.services.count == 6)
            #expect(try await gateway.send(.GET, "/health/live").status == 200)
        }
    }

    @Test("/health/ready is 503 when a required service is down or not ready; the required set is configurable")
    func requiredServiceDown() async throws {
        let down = try closedPort()
        try await GatewayHarness.run(upstreams: ["auth": Self.ready(), "analytics": Self.ready(false)], configure: { configuration in
            configuration.endpoints.baseURLs["tour-management"] = URL(string: "http://127.0.0.1:\(down)")!
        }) { (gateway: GatewayHarness) async throws in
            let answer = try await gateway.send(.GET, "/health/ready")
            #expect(answer.status == 503)
            let body = try answer.json(ReadinessBody.self)
            #expect(body.status == "not-ready")
            #expect(body.status(of: "tour-management") == "down")
            #expect(body.status(of: "analytics") == "not-ready")
        }
        try await GatewayHarness.run(upstreams: ["auth": Self.ready(), "analytics": Self.ready(false)],
                                     configure: { $0.requiredServices = ["auth"] }) { (gateway: GatewayHarness) async throws in
            #expect(try await gateway.send(.GET, "/health/ready").status == 200)
        }
    }

    @Test("/metrics has per-route histograms labelled by route template and upstream, never by raw path")
    func metricsAreLabelledByRoute() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")]) { (gateway: GatewayHarness) async throws in
            for id in 1...3 { _ = try await gateway.send(.GET, "/v1/tours/\(id)/stops") }
            _ = try await gateway.send(.GET, "/v1/no-such/\(UUID())")
            let metrics = try await gateway.send(.GET, "/metrics").text
            #expect(metrics.contains(#"gateway_request_duration_seconds_count{method="GET",route="/v1/tours/*",upstream="tour-management",status="200"} 3"#))
            #expect(metrics.contains(#"route="unmatched""#))
            #expect(!metrics.contains("/v1/tours/1"))
            #expect(!metrics.contains("/v1/no-such"))
        }
    }

    @Test("/openapi.yaml documents exactly the gateway's own routes and points to the services' documents")
    func openAPIDocument() async throws {
        // The gateway as `gateway serve` assembles it: with the push stream (its hub reads no producer here).
        let hub = NotificationHub(configuration: NotificationHubConfiguration(transport: .embedded(producers: [], auth: nil)))
        try await GatewayHarness.run(extensions: { $0.addPushStream(hub: hub) }) { (gateway: GatewayHarness) async throws in
            let answer = try await gateway.send(.GET, "/openapi.yaml")
            #expect(answer.status == 200)
            #expect(answer.header("content-type") == "application/yaml")
            #expect(answer.text.hasPrefix("openapi: 3.1"))
            #expect(answer.text.contains("Services/<Name>/Sources/openapi.yaml"))
            let documented = Set(OpenAPIText.routes(in: answer.text).map(\.description))
            #expect(documented == ["GET /health/live", "GET /health/ready", "GET /metrics", "GET /openapi.yaml", "GET /v1/notifications/stream"])
            #expect(documented == Set(gateway.app.routeTable.map { "\($0.method) \($0.path)" }), "the document describes the router")
        }
    }
}
