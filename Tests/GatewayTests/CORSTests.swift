import Foundation
import Gateway
import Testing

@Suite("CORS: an allow-list of origins, preflights answered at the edge")
struct CORSTests {
    static let configure: @Sendable (inout GatewayConfiguration) -> Void = { $0.corsOrigins = ["https://app.waypoint.example"] }

    @Test("a preflight from an allowed origin is answered by the gateway; the service never sees it")
    func preflightIsAnsweredAtTheEdge() async throws {
        let hits = Hits()
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management", hits: hits)], configure: Self.configure) { (gateway: GatewayHarness) async throws in
            let answer = try await gateway.send(.OPTIONS, "/v1/tours", headers: [
                ("Origin", "https://app.waypoint.example"), ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "authorization, content-type"),
            ])
            #expect(answer.status == 204)
            #expect(answer.header("access-control-allow-origin") == "https://app.waypoint.example")
            #expect(answer.header("access-control-allow-methods")?.contains("POST") == true)
            #expect(answer.header("access-control-allow-headers") == "authorization, content-type")
            #expect(answer.header("vary")?.contains("Origin") == true)
        }
        #expect(hits.value == 0)
    }

    @Test("a preflight from another origin is 403; its requests get no CORS headers")
    func otherOriginsAreRefused() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")], configure: Self.configure) { (gateway: GatewayHarness) async throws in
            let preflight = try await gateway.send(.OPTIONS, "/v1/tours", headers: [("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST")])
            #expect(preflight.status == 403)
            #expect(try preflight.problem().code == "origin-not-allowed")
            let request = try await gateway.send(.GET, "/v1/tours", headers: [("Origin", "https://evil.example")])
            #expect(request.header("access-control-allow-origin") == nil)
            #expect(request.headers["vary"].joined(separator: ",").contains("Origin"))
        }
    }

    @Test("an allowed origin's request — errors included — can read the answer and its rate-limit and trace headers")
    func allowedOriginReadsAnswers() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")], configure: Self.configure) { (gateway: GatewayHarness) async throws in
            for path in ["/v1/tours", "/v1/unknown"] {
                let answer = try await gateway.send(.GET, path, headers: [("Origin", "https://app.waypoint.example")])
                #expect(answer.header("access-control-allow-origin") == "https://app.waypoint.example", "\(path)")
                #expect(answer.header("access-control-expose-headers")?.contains("RateLimit") == true)
                #expect(answer.headers["vary"].joined(separator: ",").contains("Origin"))
            }
        }
    }
}
