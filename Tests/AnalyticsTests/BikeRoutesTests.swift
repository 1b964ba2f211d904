@testable import Analytics
import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Messaging
import ServiceKit
import ServiceTesting
import Testing

/// Issue 22, point 2 over HTTP: `GET /v1/analytics/riders/me` (+ `chart.svg`) for any signed-in user about themselves,
/// `GET /v1/analytics/bike` for administrators and moderators; RFC 9457 problems for 401, 403 and 422.
@Suite("analytics: the riders' and the bike side's routes")
struct BikeRoutesTests {
    typealias B = BikeScenario
    static let today = Scenario.date("2026-04-30T12:00:00Z")

    /// The service over SQLite holding the bike scenario (events delivered directly, no consumers).
    static func withApplication<T: Sendable>(_ body: @Sendable (ServiceApplication) async throws -> T) async throws -> T {
        try await AnalyticsRoutesTests.withApplication(events: B.events.events, today: Self.today, body)
    }

    static func get(_ client: any TestClientProtocol, _ uri: String, token: String?) async throws -> AnalyticsRoutesTests.Answer {
        try await AnalyticsRoutesTests.get(client, uri, token: token)
    }

    /// A problem document with `status` and `code`.
    static func expectProblem(_ answer: AnalyticsRoutesTests.Answer, _ status: Int, _ code: String, _ label: String = "") {
        #expect(answer.status == status, "\(label)")
        #expect(answer.headers[.contentType] == "application/problem+json", "\(label)")
        #expect(answer.json["code"] as? String == code && answer.json["status"] as? Int == status && answer.json["detail"] is String,
                "\(label): \(answer.text)")
    }

    @Test("riders/me: the caller's own rides (a rider's role does not matter), 12 months by default, 401 without a token, 422 for bad ranges")
    func rider() async throws {
        try await Self.withApplication { app in
            try await app.test(.router) { client in
                let r1 = try await TokenForge.token(B.r1, role: .traveller)
                let answer = try await Self.get(client, "/v1/analytics/riders/me?from=2026-03-01&to=2026-04-30", token: r1)
                #expect(answer.status == 200 && (answer.headers[.contentType] ?? "").hasPrefix("application/json"))
                let mine = try ServiceJSON.makeDecoder().decode(RiderAnalytics.self, from: answer.body)
                #expect(mine.riderId == B.r1 && mine.totals.trips == 6 && mine.totals.distanceM == 55_846.178)
                #expect(!answer.text.contains(B.r2), "nobody else's rides")
                let months = answer.json["months"] as? [[String: Any]] ?? []
                #expect(months.first?["period"] as? String == "2026-03" && months.first?["distanceM"] as? Double == 43_500.5, "JSON as documented")

                let defaults = try ServiceJSON.makeDecoder().decode(RiderAnalytics.self,
                                                                    from: try await Self.get(client, "/v1/analytics/riders/me", token: r1).body)
                #expect((defaults.from, defaults.to, defaults.months.count) == ("2025-05-01", "2026-04-30", 12), "the 12 months up to today's")
                #expect(defaults.totals.trips == 6)

                let guide = try await TokenForge.token(B.r2, role: .guide)
                let theirs = try ServiceJSON.makeDecoder().decode(RiderAnalytics.self,
                                                                  from: try await Self.get(client, "/v1/analytics/riders/me?from=2026-03-01", token: guide).body)
                #expect(theirs.riderId == B.r2 && theirs.totals.trips == 1, "any signed-in user, about themselves")

                Self.expectProblem(try await Self.get(client, "/v1/analytics/riders/me", token: nil), 401, "unauthenticated", "no token")
                Self.expectProblem(try await Self.get(client, "/v1/analytics/riders/me", token: "not-a-jwt"), 401, "invalid-token", "bad token")
                for (uri, code) in [("/v1/analytics/riders/me?from=2026-04-10&to=2026-04-01", "range-reversed"),
                                    ("/v1/analytics/riders/me?from=2020-01-01", "range-too-long"),
                                    ("/v1/analytics/riders/me?to=soon", "invalid-date")] {
                    let bad = try await Self.get(client, uri, token: r1)
                    Self.expectProblem(bad, 422, "invalid-field", "\(uri)")
                    #expect((bad.json["fieldErrors"] as? [[String: Any]] ?? []).contains { $0["code"] as? String == code }, "\(uri): \(bad.text)")
                }
            }
        }
    }

    @Test("bike: administrators and moderators only (403 problem+json for others, 401 without a token); the figures; 422 for bad ranges")
    func bike() async throws {
        try await Self.withApplication { app in
            try await app.test(.router) { client in
                Self.expectProblem(try await Self.get(client, "/v1/analytics/bike", token: nil), 401, "unauthenticated")
                for role in [Role.traveller, .guide] {
                    let token = try await TokenForge.token(UUID().uuidString.lowercased(), role: role)
                    Self.expectProblem(try await Self.get(client, "/v1/analytics/bike", token: token), 403, "insufficient-role", "\(role)")
                }
                for role in [Role.admin, .moderator] {
                    let token = try await TokenForge.token(UUID().uuidString.lowercased(), role: role)
                    let answer = try await Self.get(client, "/v1/analytics/bike?from=2026-03-01&to=2026-03-31", token: token)
                    #expect(answer.status == 200, "\(role)")
                    let figures = try ServiceJSON.makeDecoder().decode(BikeFigures.self, from: answer.body)
                    #expect(figures.review.queueLength == 2 && figures.review.medianTimeToDecisionS == 7_200 && figures.review.approved == 3)
                    #expect(figures.navigation.reroutesPerSession == 0.75 && figures.obstacles.confirmedByRiders == 3)
                    let review = answer.json["review"] as? [String: Any] ?? [:]
                    #expect(review["approvalRate"] as? Double == 0.75 && review["rejected"] as? Int == 1, "JSON as documented: \(answer.text)")
                }
                let admin = try await TokenForge.token(UUID().uuidString.lowercased(), role: .admin)
                let defaults = try ServiceJSON.makeDecoder().decode(BikeFigures.self, from: try await Self.get(client, "/v1/analytics/bike", token: admin).body)
                #expect((defaults.from, defaults.to) == ("2026-04-01", "2026-04-30"), "the last 30 days, as every platform figure")
                #expect(defaults.review.queueLength == 1)
                let reversed = try await Self.get(client, "/v1/analytics/bike?from=2026-03-31&to=2026-03-01", token: admin)
                Self.expectProblem(reversed, 422, "invalid-field")
            }
        }
    }

    @Test("riders/me/chart.svg: well-formed SVG bar charts per ISO week or month, axes, unit, a value per bar; empty riders; 422 for bad metric or period")
    func chart() async throws {
        try await Self.withApplication { app in
            try await app.test(.router) { client in
                let r1 = try await TokenForge.token(B.r1, role: .traveller)
                let weekly = try await Self.get(client, "/v1/analytics/riders/me/chart.svg?from=2026-03-01&to=2026-04-30", token: r1)
                #expect(weekly.status == 200 && weekly.headers[.contentType] == "image/svg+xml; charset=utf-8")
                let chart = try SVGDocument(weekly.body)
                #expect(chart.root == "svg" && chart.groups.contains("axis x-axis") && chart.groups.contains("axis y-axis"))
                #expect(chart.texts.contains("Distance (km)") && chart.texts.contains("ISO week"), "unit and axis titles: \(chart.texts)")
                #expect(chart.texts.contains { $0.hasPrefix("Distance per ISO week, 2026-03-01 – 2026-04-30") })
                #expect(chart.count("rect") == 11, "the background and one bar per ISO week W09…W18")
                #expect(chart.texts.contains("2026-W10: 30") && chart.texts.contains("2026-W14: 19.85") && chart.texts.contains("2026-W09: 0"),
                        "each bar carries its value in km: \(chart.texts)")

                let monthly = try SVGDocument(try await Self.get(client, "/v1/analytics/riders/me/chart.svg?metric=moving-time&period=month&to=2026-04-30",
                                                                 token: r1).body)
                #expect(monthly.texts.contains("Moving time (h)") && monthly.texts.contains("Month (UTC)"))
                #expect(monthly.count("rect") == 13, "12 months by default")
                #expect(monthly.texts.contains("2026-03: 2.25") && monthly.texts.contains("2025-05: 0"), "8,100.75 s = 2.25 h: \(monthly.texts)")
                let rides = try SVGDocument(try await Self.get(client, "/v1/analytics/riders/me/chart.svg?metric=trips", token: r1).body)
                #expect(rides.texts.contains("Rides") && rides.count("rect") == 13, "12 ISO weeks by default")
                #expect(rides.texts.contains("2026-W14: 2"))
                let elevation = try SVGDocument(try await Self.get(client, "/v1/analytics/riders/me/chart.svg?metric=elevation&period=month", token: r1).body)
                #expect(elevation.texts.contains("Elevation gain (m)") && elevation.texts.contains("2026-03: 355.75"))

                let newcomer = try await TokenForge.token(UUID().uuidString.lowercased(), role: .traveller)
                #expect(try SVGDocument(try await Self.get(client, "/v1/analytics/riders/me/chart.svg", token: newcomer).body).root == "svg",
                        "a valid chart without rides")
                Self.expectProblem(try await Self.get(client, "/v1/analytics/riders/me/chart.svg", token: nil), 401, "unauthenticated")
                for (uri, field) in [("/v1/analytics/riders/me/chart.svg?metric=speed", "metric"), ("/v1/analytics/riders/me/chart.svg?period=day", "period")] {
                    let bad = try await Self.get(client, uri, token: r1)
                    Self.expectProblem(bad, 422, "invalid-field", "\(uri)")
                    #expect((bad.json["fieldErrors"] as? [[String: Any]] ?? []).contains { $0["field"] as? String == field && $0["code"] as? String == "not-allowed" })
                }
            }
        }
    }
}
