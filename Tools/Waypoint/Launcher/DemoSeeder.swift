import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Seeds ``DemoData`` through the public HTTP APIs — the gateway when it runs, else each service directly — and does
/// nothing twice: existing accounts are logged into, tours the guide already published are kept (a draft left by an
/// interrupted run is deleted and made again); the bike side (``DemoBikeSeeder``) likewise.
public struct DemoSeeder: Sendable {
    public var plan: LaunchPlan
    public var console: Console
    /// Runs `auth create-admin` for an account (with auth's environment); the bike side needs an administrator to grant
    /// the moderator's role, and no route makes one.
    public var createAdministrator: @Sendable (DemoData.Account) async throws -> Void

    public init(plan: LaunchPlan, console: Console, createAdministrator: @escaping @Sendable (DemoData.Account) async throws -> Void) {
        self.plan = plan
        self.console = console
        self.createAdministrator = createAdministrator
    }

    /// The base URL clients of `service` use: the gateway when it runs, else the service itself (`nil` when neither).
    func base(of service: String) -> String? {
        if plan.entry("gateway")?.isStarted == true { return plan.gatewayURL }
        guard let entry = plan.entry(service), entry.isStarted else { return nil }
        return entry.baseURL
    }

    /// What was done, and the credentials, as lines for the console.
    public struct Outcome: Sendable {
        public var created: [String] = []
        public var kept: [String] = []
        /// The bike side's outcome; `nil` when path-review or record-trip does not run.
        public var bike: DemoBikeSeeder.Outcome?
        public var summary: [String] {
            var lines = ["demo: \(created.count) tours published, \(kept.count) already there",
                         "demo guide:     \(DemoData.guide.email) / \(DemoData.guide.password)",
                         "demo traveller: \(DemoData.traveller.email) / \(DemoData.traveller.password)"]
            if let bike { lines += bike.summary }
            return lines
        }
    }

    public func seed() async throws -> Outcome {
        guard let authBase = base(of: "auth") else { throw LauncherError("auth does not run: no demo") }
        var outcome = Outcome()
        if let toursBase = base(of: "tour-management") {
            (outcome.created, outcome.kept) = try await seedTours(authBase: authBase, toursBase: toursBase)
        }
        if let pathsBase = base(of: "path-review"), let tripsBase = base(of: "record-trip") {
            outcome.bike = try await DemoBikeSeeder(client: client, authBase: authBase, pathsBase: pathsBase, tripsBase: tripsBase,
                                                    createAdministrator: createAdministrator).seed()
        }
        return outcome
    }

    var client: DemoClient { DemoClient() }

    private func seedTours(authBase: String, toursBase: String) async throws -> (created: [String], kept: [String]) {
        let guideToken = try await client.signIn(DemoData.guide, base: authBase)
        _ = try await client.signIn(DemoData.traveller, base: authBase)

        let listed = try await client.call(.GET, "\(toursBase)/v1/guides/me/tours", token: guideToken, expect: [200])
        let existing = (listed["tours"] as? [[String: Any]] ?? []).reduce(into: [String: (id: String, status: String)]()) { found, row in
            if let title = row["title"] as? String, let id = row["tourId"] as? String, let status = row["status"] as? String {
                found[title] = (id, status)
            }
        }
        var outcome: (created: [String], kept: [String]) = ([], [])
        for tour in DemoData.tours {
            if let previous = existing[tour.title] {
                if previous.status == "published" {
                    outcome.kept.append(tour.title)
                    continue
                }
                if previous.status == "unpublished" {
                    _ = try await client.call(.POST, "\(toursBase)/v1/tours/\(previous.id)/publish", token: guideToken, expect: [200])
                    outcome.kept.append(tour.title)
                    continue
                }
                if previous.status == "draft" {
                    _ = try await client.call(.DELETE, "\(toursBase)/v1/tours/\(previous.id)", token: guideToken, expect: [204, 404])
                }
            }
            try await publish(tour, base: toursBase, token: guideToken)
            outcome.created.append(tour.title)
        }
        return outcome
    }

    private func publish(_ tour: DemoData.Tour, base: String, token: String) async throws {
        let destinationId = try await destination(tour.city, country: tour.country, base: base)
        let created = try await client.call(.POST, "\(base)/v1/tours", token: token, body: [
            "title": tour.title, "description": tour.description, "destinationId": destinationId, "themes": tour.themes,
            "languages": tour.languages, "price": ["amountMinor": tour.priceMinor, "currency": tour.currency],
            "estimatedMinutes": tour.estimatedMinutes, "difficulty": tour.difficulty, "mode": "walk",
        ], expect: [201])
        guard let id = created["id"] as? String else { throw LauncherError("POST /v1/tours answered no id") }
        for stop in tour.stops {
            _ = try await client.call(.POST, "\(base)/v1/tours/\(id)/stops", token: token, body: [
                "name": stop.name, "description": stop.description, "location": ["lat": stop.lat, "lng": stop.lng],
                "triggerRadiusMetres": 40,
            ], expect: [201])
        }
        _ = try await client.call(.POST, "\(base)/v1/tours/\(id)/publish", token: token, expect: [200])
    }

    /// The gazetteer id of `city` in `country` (`GET /v1/destinations?prefix=`).
    private func destination(_ city: String, country: String, base: String) async throws -> Int64 {
        let prefix = city.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? city
        let found = try await client.call(.GET, "\(base)/v1/destinations?prefix=\(prefix)&limit=50", expect: [200])
        let match = (found["destinations"] as? [[String: Any]] ?? []).first {
            ($0["name"] as? String) == city && ($0["country"] as? String) == country
        }
        guard let id = (match?["id"] as? NSNumber)?.int64Value else { throw LauncherError("no destination \(city), \(country) in the gazetteer") }
        return id
    }
}
