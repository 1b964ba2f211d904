import Foundation
import Gateway
import ServiceKit
import ServiceTesting
import Testing

@Suite("Routing: the route table, unknown and hidden paths")
struct RoutingTests {
    static let owners: [(path: String, service: String)] = [
        ("/v1/auth/login", "auth"), ("/v1/users/me", "auth"), ("/.well-known/jwks.json", "auth"),
        ("/v1/tours", "tour-management"), ("/v1/tours/42/stops", "tour-management"), ("/v1/destinations/near", "tour-management"),
        ("/v1/guides/me/tours", "tour-management"), ("/v1/me/favourites", "tour-management"), ("/v1/payments/webhook", "tour-management"),
        ("/v1/bundles/public-key", "tour-management"), ("/v1/admin/exchange-rates", "tour-management"), ("/v1/media/abc", "tour-management"),
        ("/v1/exchange-rates", "tour-management"), ("/v1/reviews/7/hide", "tour-management"), ("/v1/moderation/reviews", "tour-management"),
        ("/v1/paths/1", "path-review"), ("/v1/streets", "path-review"), ("/v1/navigation/sessions", "navigation"),
        ("/v1/routes", "navigation"), ("/v1/plans/3", "navigation"), ("/v1/trips/9", "record-trip"), ("/v1/analytics/platform", "analytics"),
    ]

    @Test("every prefix of the route table reaches the service that owns it, path and query unchanged")
    func everyPrefixReachesItsOwner() async throws {
        let standIns = Dictionary(uniqueKeysWithValues: GatewayConfiguration.upstreamServices.map { ($0, StandIn.echo($0)) })
        try await GatewayHarness.run(upstreams: standIns) { (gateway: GatewayHarness) async throws in
            for (path, service) in Self.owners {
                let answer = try await gateway.send(.GET, path + "?b=2&a=1")
                #expect(answer.status == 200, "\(path)")
                let echo = try answer.json(Echo.self)
                #expect(echo.service == service, "\(path)")
                #expect(echo.path == path)
                #expect(echo.query == "b=2&a=1")
            }
        }
    }

    @Test("the most specific prefix wins")
    func mostSpecificPrefixWins() {
        let table = RouteTable([GatewayRoute("/v1/admin", to: "auth"), GatewayRoute("/v1/admin/exchange-rates", to: "tour-management"),
                                GatewayRoute("/v1/admin/exchange-rates/secret", to: nil)])
        #expect(table.resolve("/v1/admin/users") == .proxied(GatewayRoute("/v1/admin", to: "auth")))
        #expect(table.resolve("/v1/admin/exchange-rates/EUR") == .proxied(GatewayRoute("/v1/admin/exchange-rates", to: "tour-management")))
        #expect(table.resolve("/v1/admin/exchange-rates/secret/x") == .hidden(GatewayRoute("/v1/admin/exchange-rates/secret", to: nil)))
        #expect(table.resolve("/v1/administrators") == .local, "prefixes match whole segments")
        #expect(RouteTable.waypoint.resolve("/v1/admin/other") == .local, "only exchange rates of /v1/admin are routed")
        #expect(RouteTable.waypoint.resolve("/.well-known/jwks.json/x") == .local, "the JWKS route covers that one path")
    }

    @Test("an unknown route is a 404 problem")
    func unknownRouteIs404() async throws {
        try await GatewayHarness.run(upstreams: ["tour-management": .echo("tour-management")]) { (gateway: GatewayHarness) async throws in
            for path in ["/v1/nothing-here", "/v2/tours", "/", "/v1"] {
                let answer = try await gateway.send(.GET, path)
                #expect(answer.status == 404, "\(path)")
                #expect(answer.header("content-type") == "application/problem+json")
                let problem = try answer.problem()
                #expect(problem.code == "not-found")
                #expect(problem.requestId == answer.header("x-request-id"))
            }
        }
    }

    @Test("/v1/internal is never exposed, however it is spelled, and no service sees the request")
    func internalRoutesAreHidden() async throws {
        let hits = Hits()
        try await GatewayHarness.run(upstreams: ["auth": .echo("auth", hits: hits), "tour-management": .echo("tour-management", hits: hits)]) { (gateway: GatewayHarness) async throws in
            for path in ["/v1/internal/events", "//v1//internal/events?after=0", "/V1/Internal/events", "/v1/%69nternal/events",
                         "/v1/tours/../internal/events", "/v1/internal"] {
                let answer = try await gateway.send(.GET, path, headers: [("Authorization", "Bearer some-internal-token")])
                #expect(answer.status == 404, "\(path)")
                #expect(try answer.problem().code == "not-found")
            }
        }
        #expect(hits.value == 0)
    }

    @Test("a route whose service has no URL answers 503 service-unavailable")
    func unconfiguredServiceIs503() async throws {
        try await GatewayHarness.run(upstreams: ["auth": .echo("auth")]) { (gateway: GatewayHarness) async throws in
            for path in ["/v1/paths/1", "/v1/trips", "/v1/navigation/sessions"] {
                let answer = try await gateway.send(.GET, path)
                #expect(answer.status == 503, "\(path)")
                let problem = try answer.problem()
                #expect(problem.code == "service-unavailable")
                #expect(problem.title == "Service unavailable")
            }
        }
    }

    /// Every service's document in the source tree (`Services/<Name>/Sources/openapi.yaml`, the gateway's own excepted),
    /// by service name: `TourManagement` → `tour-management`. A new service is checked as soon as its document exists.
    static func serviceDocuments(testFile: String = #filePath) throws -> [(service: String, yaml: String)] {
        let services = URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Services")
        return try FileManager.default.contentsOfDirectory(atPath: services.path).sorted().compactMap { folder in
            let file = services.appendingPathComponent(folder).appendingPathComponent("Sources/openapi.yaml")
            guard folder != "Gateway", FileManager.default.fileExists(atPath: file.path) else { return nil }
            let name = folder.reduce(into: "") { name, character in
                if character.isUppercase, !name.isEmpty { name += "-" }
                name += character.lowercased()
            }
            return (name, try String(contentsOf: file, encoding: .utf8))
        }
    }

    @Test("every public path of every service's OpenAPI document is routed to its owner; internal paths are not")
    func routeTableMatchesTheServicesDocuments() throws {
        let documents = try Self.serviceDocuments()
        #expect(Set(documents.map(\.service)).isSuperset(of: ["auth", "tour-management", "analytics"]))
        var checked = 0
        for (service, yaml) in documents {
            let routes = OpenAPIText.routes(in: yaml)
            #expect(!routes.isEmpty, "\(service) documents no routes")
            for path in Set(routes.map(\.path)) where path.hasPrefix("/v1/") || path.hasPrefix("/.well-known/") {
                let concrete = path.replacingOccurrences(of: "{", with: "x").replacingOccurrences(of: "}", with: "")
                switch RouteTable.waypoint.resolve(concrete) {
                case .proxied(let route):
                    #expect(!path.hasPrefix("/v1/internal"), "\(path) of \(service) is internal but routed")
                    #expect(route.upstream == service, "\(path) of \(service) is routed to \(route.upstream ?? "-")")
                case .hidden:
                    #expect(path.hasPrefix("/v1/internal"), "\(path) of \(service) is public but hidden")
                case .local:
                    Issue.record("\(path) of \(service) is not routed")
                }
                checked += 1
            }
        }
        #expect(checked > 50)
    }
}
