import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Seeds ``DemoData`` through the public HTTP APIs — the gateway when it runs, else auth and tour-management directly —
/// and does nothing twice: existing accounts are logged into, tours the guide already published are kept (a draft
/// left by an interrupted run is deleted and made again).
public struct DemoSeeder: Sendable {
    public var plan: LaunchPlan
    public var console: Console

    public init(plan: LaunchPlan, console: Console) {
        self.plan = plan
        self.console = console
    }

    /// What was done, and the credentials, as lines for the console.
    public struct Outcome: Sendable {
        public var created: [String] = []
        public var kept: [String] = []
        public var summary: [String] {
            ["demo: \(created.count) tours published, \(kept.count) already there",
             "demo guide:     \(DemoData.guide.email) / \(DemoData.guide.password)",
             "demo traveller: \(DemoData.traveller.email) / \(DemoData.traveller.password)"]
        }
    }

    public func seed() async throws -> Outcome {
        let viaGateway = plan.entry("gateway")?.isStarted == true
        let authBase = viaGateway ? plan.gatewayURL : plan.entry("auth")!.baseURL
        let toursBase = viaGateway ? plan.gatewayURL : plan.entry("tour-management")!.baseURL
        let guideToken = try await signIn(DemoData.guide, base: authBase)
        _ = try await signIn(DemoData.traveller, base: authBase)

        let listed = try await call(.GET, "\(toursBase)/v1/guides/me/tours", token: guideToken, expect: [200])
        let existing = (listed["tours"] as? [[String: Any]] ?? []).reduce(into: [String: (id: String, status: String)]()) { found, row in
            if let title = row["title"] as? String, let id = row["tourId"] as? String, let status = row["status"] as? String {
                found[title] = (id, status)
            }
        }
        var outcome = Outcome()
        for tour in DemoData.tours {
            if let previous = existing[tour.title] {
                if previous.status == "published" {
                    outcome.kept.append(tour.title)
                    continue
                }
                if previous.status == "unpublished" {
                    _ = try await call(.POST, "\(toursBase)/v1/tours/\(previous.id)/publish", token: guideToken, expect: [200])
                    outcome.kept.append(tour.title)
                    continue
                }
                if previous.status == "draft" {
                    _ = try await call(.DELETE, "\(toursBase)/v1/tours/\(previous.id)", token: guideToken, expect: [204, 404])
                }
            }
            try await publish(tour, base: toursBase, token: guideToken)
            outcome.created.append(tour.title)
        }
        return outcome
    }

    /// Registers the account (an existing one is fine) and logs in; returns the access token.
    private func signIn(_ account: DemoData.Account, base: String) async throws -> String {
        _ = try await call(.POST, "\(base)/v1/auth/register", body: [
            "username": account.username, "email": account.email, "password": account.password, "role": account.role,
        ], expect: [201, 422])
        let login = try await call(.POST, "\(base)/v1/auth/login", body: [
            "email": account.email, "password": account.password, "deviceId": "waypoint-demo",
        ], expect: [200])
        guard let token = login["accessToken"] as? String else { throw LauncherError("login of \(account.email) answered no token") }
        return token
    }

    private func publish(_ tour: DemoData.Tour, base: String, token: String) async throws {
        let destinationId = try await destination(tour.city, country: tour.country, base: base)
        let created = try await call(.POST, "\(base)/v1/tours", token: token, body: [
            "title": tour.title, "description": tour.description, "destinationId": destinationId, "themes": tour.themes,
            "languages": tour.languages, "price": ["amountMinor": tour.priceMinor, "currency": tour.currency],
            "estimatedMinutes": tour.estimatedMinutes, "difficulty": tour.difficulty, "mode": "walk",
        ], expect: [201])
        guard let id = created["id"] as? String else { throw LauncherError("POST /v1/tours answered no id") }
        for stop in tour.stops {
            _ = try await call(.POST, "\(base)/v1/tours/\(id)/stops", token: token, body: [
                "name": stop.name, "description": stop.description, "location": ["lat": stop.lat, "lng": stop.lng],
                "triggerRadiusMetres": 40,
            ], expect: [201])
        }
        _ = try await call(.POST, "\(base)/v1/tours/\(id)/publish", token: token, expect: [200])
    }

    /// The gazetteer id of `city` in `country` (`GET /v1/destinations?prefix=`).
    private func destination(_ city: String, country: String, base: String) async throws -> Int64 {
        let prefix = city.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? city
        let found = try await call(.GET, "\(base)/v1/destinations?prefix=\(prefix)&limit=50", expect: [200])
        let match = (found["destinations"] as? [[String: Any]] ?? []).first {
            ($0["name"] as? String) == city && ($0["country"] as? String) == country
        }
        guard let id = (match?["id"] as? NSNumber)?.int64Value else { throw LauncherError("no destination \(city), \(country) in the gazetteer") }
        return id
    }

    /// One JSON request; throws unless the status is one of `expect`.
    private func call(_ method: HTTPMethod, _ url: String, token: String? = nil, body: [String: Any]? = nil, expect: Set<Int>)
        async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 4 << 20)
        let text = String(buffer: bytes)
        guard expect.contains(Int(response.status.code)) else {
            throw LauncherError("\(method) \(url) answered \(response.status.code): \(text.prefix(500))")
        }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
}
