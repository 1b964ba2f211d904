import HTTPTypes
import HummingbirdTesting
import ServiceKit
import Testing

@Suite("Health, metrics and the OpenAPI document")
struct OperationalRoutesTests {
    @Test("/health/live answers 200 while the process runs")
    func live() async throws {
        try await TestApplication.make().test(.router) { client in
            let response = try await client.execute(uri: "/health/live", method: .get)
            #expect(response.status == .ok)
        }
    }

    @Test("/health/ready is 200 when every registered check passes")
    func readyWhenChecksPass() async throws {
        let readiness = Readiness()
        readiness.register("projection.tours") { .ready }
        readiness.register("consumer.waypoint.auth") { .ready }
        try await TestApplication.make(readiness: readiness).test(.router) { client in
            let response = try await client.execute(uri: "/health/ready", method: .get)
            #expect(response.status == .ok)
            let report = try response.json(ReadinessReport.self)
            #expect(report.status == "ready")
            #expect(report.checks.map(\.name) == ["consumer.waypoint.auth", "projection.tours"])
        }
    }

    @Test("/health/ready is 503 naming the failing check")
    func notReadyNamesFailingCheck() async throws {
        let readiness = Readiness()
        readiness.register("projection.tours") { .notReady("cannot decode event 812 (TourPublished v3)") }
        readiness.register("relay.waypoint.tours") { .ready }
        try await TestApplication.make(readiness: readiness).test(.router) { client in
            let response = try await client.execute(uri: "/health/ready", method: .get)
            #expect(response.status == .serviceUnavailable)
            let report = try response.json(ReadinessReport.self)
            #expect(report.status == "not-ready")
            #expect(report.failing == ["projection.tours"])
            #expect(report.checks.first?.detail == "cannot decode event 812 (TourPublished v3)")
        }
    }

    @Test("a check that does not answer in time counts as failing")
    func slowCheckFails() async throws {
        let readiness = Readiness(checkTimeout: .milliseconds(50))
        readiness.register("consumer.slow") {
            try? await Task.sleep(for: .seconds(30))
            return .ready
        }
        let report = await readiness.evaluate()
        #expect(report.failing == ["consumer.slow"])
    }

    @Test("/health/ready is 503 while draining")
    func drainingIsNotReady() async throws {
        let readiness = Readiness()
        readiness.register("projection.tours") { .ready }
        try await TestApplication.make(readiness: readiness).test(.router) { client in
            #expect(try await client.execute(uri: "/health/ready", method: .get).status == .ok)
            readiness.beginDraining()
            let response = try await client.execute(uri: "/health/ready", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(try response.json(ReadinessReport.self).status == "draining")
            #expect(try await client.execute(uri: "/health/live", method: .get).status == .ok)
        }
    }

    @Test("/metrics exposes the request duration histogram in seconds after a request")
    func metricsAfterRequest() async throws {
        try await TestApplication.make().test(.router) { client in
            _ = try await client.execute(uri: "/v1/trace", method: .get)
            _ = try await client.execute(uri: "/v1/nowhere/at/all", method: .get)
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = response.text
            #expect(text.contains("# TYPE http_server_request_duration_seconds histogram"))
            #expect(text.contains(#"http_server_request_duration_seconds_count{method="GET",route="/v1/trace",status="200"} 1"#))
            #expect(text.contains(#"http_server_request_duration_seconds_bucket{method="GET",route="/v1/trace",status="200",le="0.005"}"#))
            #expect(text.contains(#"route="unmatched",status="404""#))
        }
    }

    @Test("lag and backlog gauges registered by components appear in /metrics")
    func componentGauges() async throws {
        let metrics = ServiceMetrics()
        metrics.projectionLag(projection: "tour-catalogue").record(12)
        metrics.consumerLag(topic: "waypoint.auth", group: "tour-management").record(3)
        metrics.relayBacklog(topic: "waypoint.tours").record(0)
        try await TestApplication.make(metrics: metrics).test(.router) { client in
            let text = try await client.execute(uri: "/metrics", method: .get).text
            #expect(text.contains(#"waypoint_projection_lag_events{projection="tour-catalogue"} 12"#))
            #expect(text.contains(#"waypoint_consumer_lag_messages{topic="waypoint.auth",group="tour-management"} 3"#))
            #expect(text.contains(#"waypoint_relay_backlog_events{topic="waypoint.tours"} 0"#))
        }
    }

    @Test("bootstrapping the shared metrics twice is harmless")
    func sharedBootstrapIsIdempotent() {
        let first = ServiceMetrics.bootstrap()
        let second = ServiceMetrics.bootstrap()
        #expect(first.registry === second.registry)
    }

    @Test("/openapi.yaml serves the service's document as application/yaml")
    func openAPI() async throws {
        let document = OpenAPIDocument(yaml: "openapi: 3.1.0\ninfo:\n  title: tour-management\n  version: 1.0.0\npaths: {}\n")
        try await TestApplication.make(openAPI: document).test(.router) { client in
            let response = try await client.execute(uri: "/openapi.yaml", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/yaml")
            #expect(response.text == document.yaml)
        }
    }
}
