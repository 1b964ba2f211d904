@testable import Analytics
import Contracts
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Testing

@Suite("analytics: the HTTP API, its charts and its OpenAPI document")
struct AnalyticsRoutesTests {
    static let today = Scenario.date("2026-03-31T12:00:00Z")

    /// The service over SQLite holding `events` (the scenario's by default), with no consumers (the events are delivered
    /// directly), its clock at `today`.
    static func withApplication<T: Sendable>(events: [PublishedEvent] = Scenario.events.events, today: Date = Self.today,
                                             _ body: @Sendable (ServiceApplication) async throws -> T) async throws -> T {
        try await AnalyticsHarness.withStorage(.sqlite) { storage in
            try await AnalyticsHarness.deliver(events, to: storage)
            let configuration = AnalyticsConfiguration(
                service: ServiceConfiguration(serviceName: "analytics", port: 0, logLevel: .warning),
                runtime: storage.settings)
            let server = try await AnalyticsServer.assemble(configuration, storage: storage, logger: AnalyticsHarness.quiet)
            let app = try server.application(
                consumers: [], metrics: ServiceMetrics(),
                keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                logger: AnalyticsHarness.quiet, now: { today })
            return try await body(app)
        }
    }

    struct Answer {
        var status: Int
        var body: Data
        var headers: HTTPFields
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func get(_ client: any TestClientProtocol, _ uri: String, token: String?) async throws -> Answer {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response = try await client.executeRequest(uri: uri, method: .get, headers: headers, body: nil)
        return Answer(status: Int(response.status.code), body: Data(buffer: response.body), headers: response.headers)
    }

    @Test("a guide's summary: own figures only, default range of 30 days, JSON as documented")
    func summary() async throws {
        try await Self.withApplication { app in
            try await app.test(.router) { client in
                let guide = try await TokenForge.token(Scenario.g1, role: .guide)
                let answer = try await Self.get(client, "/v1/analytics/guides/me/summary?from=2026-02-01&to=2026-03-31", token: guide)
                #expect(answer.status == 200)
                let summary = try ServiceJSON.makeDecoder().decode(GuideSummary.self, from: answer.body)
                #expect(summary.guideId == Scenario.g1)
                #expect(summary.views == 6 && summary.purchases == 3)
                #expect(summary.tours.allSatisfy { [Scenario.t1, Scenario.t2].contains($0.tourId) }, "own tours only")
                #expect(!answer.text.contains(Scenario.u1) && !answer.text.contains(Scenario.u2), "no traveller ids in the answer")

                let defaults = try ServiceJSON.makeDecoder().decode(
                    GuideSummary.self, from: try await Self.get(client, "/v1/analytics/guides/me/summary", token: guide).body)
                #expect((defaults.from, defaults.to) == ("2026-03-02", "2026-03-31"), "the last 30 days, today included")

                let other = try await TokenForge.token(Scenario.g2, role: .guide)
                let g2 = try ServiceJSON.makeDecoder().decode(
                    GuideSummary.self, from: try await Self.get(client, "/v1/analytics/guides/me/summary?from=2026-02-01", token: other).body)
                #expect(g2.tours.map(\.tourId) == [Scenario.t3])
            }
        }
    }

    @Test("bad input: reversed or over-long ranges and malformed dates are 422; roles and ownership are 401/403; unknown tours 404")
    func badInput() async throws {
        try await Self.withApplication { app in
            try await app.test(.router) { client in
                let guide = try await TokenForge.token(Scenario.g1, role: .guide)
                let cases: [(String, String)] = [
                    ("/v1/analytics/guides/me/summary?from=2026-03-10&to=2026-03-01", "range-reversed"),
                    ("/v1/analytics/guides/me/summary?from=2024-01-01&to=2026-01-02", "range-too-long"),
                    ("/v1/analytics/guides/me/summary?from=2026-02-30", "invalid-date"),
                    ("/v1/analytics/guides/me/summary?to=yesterday", "invalid-date"),
                    ("/v1/analytics/guides/me/earnings.svg?currency=XYZ", "invalid-currency"),
                    ("/v1/analytics/guides/me/views.svg?bucket=month", "not-allowed"),
                    ("/v1/analytics/guides/me/views.svg?from=2020-01-01&to=2026-01-01", "range-too-long"),
                    ("/v1/analytics/tours/\(Scenario.t1)?from=2026-03-10&to=2026-03-01", "range-reversed"),
                ]
                for (uri, code) in cases {
                    let answer = try await Self.get(client, uri, token: guide)
                    #expect(answer.status == 422, "\(uri)")
                    #expect(answer.headers[.contentType] == "application/problem+json")
                    let errors = answer.json["fieldErrors"] as? [[String: Any]] ?? []
                    #expect(errors.contains { $0["code"] as? String == code }, "\(uri): \(answer.text)")
                }
                // Exactly two years (731 days) is allowed.
                #expect(try await Self.get(client, "/v1/analytics/guides/me/summary?from=2024-04-01&to=2026-03-31", token: guide).status == 200)

                #expect(try await Self.get(client, "/v1/analytics/guides/me/summary", token: nil).status == 401)
                let traveller = try await TokenForge.token(Scenario.u1, role: .traveller)
                #expect(try await Self.get(client, "/v1/analytics/guides/me/summary", token: traveller).status == 403)
                #expect(try await Self.get(client, "/v1/analytics/tours/\(Scenario.t1)", token: traveller).status == 403)

                // Another guide's tour: 403 not-tour-owner; the owner and administrators see it; unknown ids are 404.
                let other = try await TokenForge.token(Scenario.g2, role: .guide)
                let forbidden = try await Self.get(client, "/v1/analytics/tours/\(Scenario.t1)", token: other)
                #expect(forbidden.status == 403)
                #expect(forbidden.json["code"] as? String == "not-tour-owner")
                let own = try await Self.get(client, "/v1/analytics/tours/\(Scenario.t1)?from=2026-02-01&to=2026-03-31", token: guide)
                #expect(own.status == 200)
                let tour = try ServiceJSON.makeDecoder().decode(TourAnalytics.self, from: own.body)
                #expect(tour.figures.purchases == 2 && tour.days.count == 59)
                let admin = try await TokenForge.token(UUID().uuidString.lowercased(), role: .admin)
                #expect(try await Self.get(client, "/v1/analytics/tours/\(Scenario.t1)", token: admin).status == 200)
                #expect(try await Self.get(client, "/v1/analytics/tours/\(UUID().uuidString)", token: guide).json["code"] as? String == "unknown-tour")
                #expect(try await Self.get(client, "/v1/analytics/tours/not-a-uuid", token: guide).status == 404)

                // Platform figures: administrators only.
                #expect(try await Self.get(client, "/v1/analytics/platform", token: guide).status == 403)
                let platform = try await Self.get(client, "/v1/analytics/platform?from=2026-02-01&to=2026-03-31", token: admin)
                #expect(platform.status == 200)
                let figures = try ServiceJSON.makeDecoder().decode(PlatformFigures.self, from: platform.body)
                #expect(figures.funnel.views == 8 && figures.registrationsByRole["traveller"] == 3)
            }
        }
    }

    @Test("charts: well-formed SVG with both axes, tick labels, axis titles and the currency")
    func charts() async throws {
        try await Self.withApplication { app in
            try await app.test(.router) { client in
                let guide = try await TokenForge.token(Scenario.g1, role: .guide)
                let earnings = try await Self.get(client, "/v1/analytics/guides/me/earnings.svg", token: guide)
                #expect(earnings.status == 200)
                #expect(earnings.headers[.contentType] == "image/svg+xml; charset=utf-8")
                let chart = try SVGDocument(earnings.body)
                #expect(chart.root == "svg")
                #expect(chart.groups.contains("axis x-axis") && chart.groups.contains("axis y-axis"))
                #expect(chart.texts.contains("Net earnings (USD)"), "the currency the guide earned most in (12.00 USD > 8.00 EUR) is the default")
                #expect(chart.texts.contains { $0.contains("Net earnings per month in USD") })
                #expect(chart.texts.contains("2025-04") && chart.texts.contains("2026-03"), "12 months of labels")
                #expect(chart.texts.contains("15.00"), "ticks in major units with the currency's decimals: \(chart.texts)")
                #expect(chart.count("rect") >= 13, "background and one bar per month")

                let eur = try SVGDocument(try await Self.get(client, "/v1/analytics/guides/me/earnings.svg?currency=eur", token: guide).body)
                #expect(eur.texts.contains("Net earnings (EUR)") && eur.texts.contains("8.00"))
                #expect(eur.texts.contains("2026-02: 8.00"), "each bar carries its value")

                let views = try await Self.get(client, "/v1/analytics/guides/me/views.svg?from=2026-02-01&to=2026-03-31", token: guide)
                #expect(views.status == 200)
                let lines = try SVGDocument(views.body)
                #expect(lines.count("polyline") == 2)
                #expect(lines.texts.contains("Views") && lines.texts.contains("Unique viewers") && lines.texts.contains("Day (UTC)"))
                #expect(lines.texts.contains("2026-02-01"))
                let weekly = try SVGDocument(
                    try await Self.get(client, "/v1/analytics/guides/me/views.svg?from=2025-04-01&to=2026-03-31", token: guide).body)
                #expect(weekly.texts.contains("ISO week") && weekly.texts.contains { $0.hasPrefix("2026-W") }, "long ranges by ISO week")

                // A guide with no data still gets a valid chart.
                let newcomer = try await TokenForge.token(UUID().uuidString.lowercased(), role: .guide)
                #expect(try SVGDocument(try await Self.get(client, "/v1/analytics/guides/me/earnings.svg", token: newcomer).body).root == "svg")
            }
        }
    }

    @Test("the OpenAPI document is 3.1 and documents exactly the routes the router has")
    func openAPI() async throws {
        let yaml = try OpenAPIText.document("Services/Analytics/Sources/openapi.yaml")
        #expect(yaml.hasPrefix("openapi: 3.1."))
        let documented = OpenAPIText.routes(in: yaml)
        #expect(documented.count == Set(documented).count, "a route is documented twice")
        let served = try await Self.withApplication { app in app.routeTable.map { OpenAPIRoute($0.method, $0.path) } }
        let missing = Set(served).subtracting(documented).map(\.description).sorted()
        let extra = Set(documented).subtracting(served).map(\.description).sorted()
        #expect(missing.isEmpty, "routes the service has but openapi.yaml does not document: \(missing)")
        #expect(extra.isEmpty, "routes openapi.yaml documents but the service does not have: \(extra)")
        try await Self.withApplication { app in
            try await app.test(.router) { client in
                let answer = try await Self.get(client, "/openapi.yaml", token: nil)
                #expect(answer.status == 200 && answer.text == yaml)
            }
        }
    }
}

/// An SVG parsed with Foundation's XML parser: fails unless the document is well-formed XML.
struct SVGDocument {
    var root = ""
    var elements: [String] = []
    var groups: [String] = []
    var texts: [String] = []

    init(_ data: Data) throws {
        let delegate = Collector()
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else { throw TestSetupError("not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?")") }
        root = delegate.elements.first ?? ""
        elements = delegate.elements
        groups = delegate.groups
        texts = delegate.texts
    }

    func count(_ element: String) -> Int { elements.filter { $0 == element }.count }

    final class Collector: NSObject, XMLParserDelegate {
        var elements: [String] = []
        var groups: [String] = []
        var texts: [String] = []
        var current = ""
        var inText = false

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements.append(name)
            if name == "g", let kind = attributes["class"] { groups.append(kind) }
            if name == "text" || name == "title" {
                inText = true
                current = ""
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inText { current += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" || name == "title" {
                texts.append(current)
                inText = false
            }
        }
    }
}
