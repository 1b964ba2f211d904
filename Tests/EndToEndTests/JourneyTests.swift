import AsyncHTTPClient
import Foundation
import Kafka
import NIOHTTP1
import ServiceTesting
import Testing

/// The platform end to end, through the gateway only, against the real processes `waypoint up` starts — on the
/// embedded default (SQLite, embedded transport), on SQLite and Kafka (librdkafka's mock cluster, real Kafka TCP on
/// loopback), and, when the test script started a PostgreSQL server, on the production stores: PostgreSQL and Kafka.
@Suite("end to end: a guide's tour bought, walked and rated, through the gateway, surviving crashes and restarts", .serialized)
struct JourneyTests {
    /// Stores and transport of one run.
    enum Variant: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case embedded
        case kafka
        case postgresKafka = "postgres+kafka"

        var testDescription: String { rawValue }
        var usesKafka: Bool { self != .embedded }
        var usesPostgres: Bool { self == .postgresKafka }

        /// The variants this run covers: PostgreSQL only when the test script started one.
        static var enabled: [Variant] {
            TestBackend.enabled.contains(.postgres) ? allCases : allCases.filter { !$0.usesPostgres }
        }
    }

    @Test("register, author with media, publish, find, buy, verify the bundle, walk, rate; analytics sees it in 2 s; kill -9 and restarts lose nothing",
          .timeLimit(.minutes(10)), arguments: Variant.enabled)
    func journey(variant: Variant) async throws {
        let cluster: KafkaMockCluster? = variant.usesKafka ? try KafkaMockCluster() : nil
        defer { cluster?.shutdown() }
        for topic in ["waypoint.auth", "waypoint.tours", "waypoint.paths", "waypoint.navigation", "waypoint.trips", "waypoint.notifications"] {
            try cluster?.createTopic(topic)
        }
        let directory = TemporaryDirectory("waypoint-e2e-\(variant.usesPostgres ? "postgres" : variant.rawValue)")
        defer { directory.remove() }
        let database: PostgresFixture? = variant.usesPostgres ? try await PostgresFixture() : nil
        let platform = try Platform(dataDirectory: directory.url, kafka: cluster?.bootstrapServers, postgres: database?.server)
        var finished = false
        defer { if !finished { platform.kill9Everything() } }
        try await platform.start()
        let api = GatewayClient(base: platform.gatewayURL)

        // The edge refuses what no service should see.
        let unknown = try await api.send(.GET, "/v1/no-such-thing")
        #expect(unknown.status == 404 && unknown.header("Content-Type")?.hasPrefix("application/problem+json") == true)
        #expect(try await api.send(.GET, "/v1/internal/events?after=0").status == 404, "internal routes are not exposed")
        #expect(try await api.send(.GET, "/v1/me/tours", token: "not-a-jwt").status == 401)
        let unrouted = try await api.send(.GET, "/v1/routes")
        #expect(unrouted.status == 422 && unrouted.json["code"] as? String == "invalid-field", "navigation runs and checks its query")
        let routes = try await api.send(.GET, "/v1/routes?from=48.4093,15.6033&to=48.4102,15.6185&alternatives=2&steps=true")
        #expect(routes.status == 200 && (routes.json["routes"] as? [Any])?.isEmpty == false, "navigation routes on Krems through the gateway")
        let streets = try await api.send(.GET, "/v1/streets?q=hafenstr")
        #expect(streets.status == 200 && String(decoding: streets.body, as: UTF8.self).contains("Hafenstraße"), "path-review runs and serves Krems' streets")
        #expect(try await api.send(.GET, "/v1/trips").status == 401, "record-trip runs and wants a rider")

        // Accounts.
        let suffix = String(UUID().uuidString.prefix(8)).lowercased()
        let guide = try await api.account("guide\(suffix)", role: "guide")
        let traveller = try await api.account("traveller\(suffix)", role: "traveller")

        // The guide authors a tour with three stops and media, and publishes it.
        let krems = try await api.send(.GET, "/v1/destinations?prefix=krems%20an%20der")
        #expect(krems.status == 200)
        let destination = try #require((krems.json["destinations"] as? [[String: Any]])?.first { $0["name"] as? String == "Krems an der Donau" })
        let destinationId = try #require(destination["id"] as? Int)
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png.append(Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        let upload = try await api.send(.POST, "/v1/media", raw: png, contentType: "image/png", token: guide.token)
        #expect(upload.status == 201, "\(String(decoding: upload.body, as: UTF8.self))")
        let sha = try #require(upload.json["sha256"] as? String)
        let title = "Krems gates and cellars \(suffix)"
        let created = try await api.send(.POST, "/v1/tours", json: [
            "title": title, "description": "Through the Steiner Tor to the Piaristenkirche and down to the Danube.",
            "destinationId": destinationId, "themes": ["history", "architecture"], "languages": ["en"],
            "price": ["amountMinor": 1_200, "currency": "EUR"], "estimatedMinutes": 75, "difficulty": "easy", "mode": "walk",
        ] as [String: Any], token: guide.token)
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let tourId = try #require(created.json["id"] as? String)
        let stops: [[String: Any]] = [
            ["name": "Steiner Tor", "description": "The town gate of 1480.", "location": ["lat": 48.4098, "lng": 15.5976], "media": [sha]],
            ["name": "Piaristenkirche", "description": "Late Gothic hall church above the town.", "location": ["lat": 48.4106, "lng": 15.6013]],
            ["name": "Danube promenade", "description": "The river and the Wachau beyond.", "location": ["lat": 48.4047, "lng": 15.6059]],
        ]
        var stopIds: [String] = []
        for stop in stops {
            let added = try await api.send(.POST, "/v1/tours/\(tourId)/stops", json: stop, token: guide.token)
            #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
            stopIds.append(try #require((added.json["stops"] as? [[String: Any]])?.last?["stopId"] as? String))
        }
        let published = try await api.send(.POST, "/v1/tours/\(tourId)/publish", token: guide.token)
        #expect(published.status == 200, "\(String(decoding: published.body, as: UTF8.self))")

        // The traveller finds it by destination prefix and theme, and looks at it.
        let found = try await platform.waitFor("the tour in discovery", timeout: .seconds(20)) { () -> Bool? in
            let page = try await api.send(.GET, "/v1/tours?destinationId=\(destinationId)&themes=history&limit=50", token: traveller.token)
            return (page.json["tours"] as? [[String: Any]])?.contains { $0["id"] as? String == tourId } == true ? true : nil
        }
        #expect(found)
        let detail = try await api.send(.GET, "/v1/tours/\(tourId)", token: traveller.token)
        #expect(detail.status == 200 && (detail.json["tour"] as? [String: Any])?["title"] as? String == title)

        // Buys it through the sandbox provider's signed webhook.
        let purchase = try await api.send(.POST, "/v1/tours/\(tourId)/purchase", token: traveller.token,
                                          headers: ["Idempotency-Key": "e2e-\(suffix)"])
        #expect(purchase.status == 202, "\(String(decoding: purchase.body, as: UTF8.self))")
        let purchaseId = try #require(purchase.json["purchaseId"] as? String)
        let confirmed = try await api.send(.POST, "/v1/payments/sandbox/\(purchaseId)/confirm", token: traveller.token)
        #expect(confirmed.status == 200, "\(String(decoding: confirmed.body, as: UTF8.self))")

        // The purchase confirmation is pushed to the traveller's devices (Server-Sent Events through the gateway).
        let pushed = try await api.awaitEvent("/v1/notifications/stream", token: traveller.token, containing: "event: purchase.confirmed")
        #expect(pushed.contains(purchaseId))

        // Downloads the offline bundle once it is built, and verifies its signature with the platform's public key.
        let bundleURL = try await platform.waitFor("the entitlement with a bundle", timeout: .seconds(30)) { () -> String? in
            let mine = try await api.send(.GET, "/v1/me/tours", token: traveller.token)
            let entry = (mine.json["tours"] as? [[String: Any]])?.first { $0["tourId"] as? String == tourId }
            return (entry?["bundle"] as? [String: Any]) != nil ? "/v1/tours/\(tourId)/bundle" : nil
        }
        let bundle = try await api.send(.GET, bundleURL, token: traveller.token)
        let manifest = try await api.send(.GET, "/v1/tours/\(tourId)/bundle/manifest", token: traveller.token)
        let publicKey = try await api.send(.GET, "/v1/bundles/public-key")
        #expect(bundle.status == 200 && manifest.status == 200 && publicKey.status == 200)
        let files = directory.url.appendingPathComponent("client", isDirectory: true)
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try bundle.body.write(to: files.appendingPathComponent("tour.bundle"))
        try manifest.body.write(to: files.appendingPathComponent("manifest.json"))
        try publicKey.body.write(to: files.appendingPathComponent("key.json"))
        let verified = try Self.run(platform.binDirectory.appendingPathComponent("waypoint"),
                                    ["verify-bundle", files.appendingPathComponent("tour.bundle").path, files.appendingPathComponent("manifest.json").path,
                                     "--public-key", files.appendingPathComponent("key.json").path])
        #expect(verified.status == 0, "\(verified.output)")

        // Walks it and rates it 5.
        #expect(try await api.send(.POST, "/v1/tours/\(tourId)/progress/start", token: traveller.token).status == 201)
        for stop in stopIds {
            let done = try await api.send(.POST, "/v1/tours/\(tourId)/progress/stops/\(stop)", token: traveller.token)
            #expect(done.status == 200, "\(String(decoding: done.body, as: UTF8.self))")
        }
        let review = try await api.send(.POST, "/v1/tours/\(tourId)/reviews", json: ["rating": 5, "text": "Wonderful walk."], token: traveller.token)
        #expect(review.status == 201, "\(String(decoding: review.body, as: UTF8.self))")
        let rated = ContinuousClock.now

        // The guide sees the view, the purchase, the completion and the rating within 2 s.
        let figures = try await platform.waitFor("analytics", timeout: .seconds(10)) { () -> Figures? in
            let summary = try await api.send(.GET, "/v1/analytics/guides/me/summary", token: guide.token)
            let figures = Figures(summary.json)
            return figures.views >= 1 && figures.purchases == 1 && figures.completions == 1 && figures.ratingCount == 1 ? figures : nil
        }
        let lag = ContinuousClock.now - rated
        #expect(lag < .seconds(2), "analytics caught up after \(lag)")
        #expect(figures.ratingAverage == 5)

        // kill -9 analytics: the launcher restarts it and the figures are the same.
        try await platform.crashAndAwaitRestart("analytics")
        let afterCrash = Figures(try await api.send(.GET, "/v1/analytics/guides/me/summary", token: guide.token).json)
        #expect(afterCrash == figures)

        // kill -9 tour-management while the gateway is called: its circuit opens; once the launcher has it ready again,
        // the gateway routes to it within 2 s (its readiness closes the circuit; no 30 s open period to sit out).
        let killed = try #require(try platform.state().service("tour-management")?.pid)
        #expect(kill(killed, SIGKILL) == 0)
        for _ in 0..<6 {
            // 502 for a pooled connection the kill reset, 503 for refused ones and the open circuit.
            let during = try await api.send(.GET, "/v1/me/tours", token: traveller.token)
            #expect([502, 503].contains(during.status))
        }
        let metrics = try await api.send(.GET, "/metrics")
        #expect(String(decoding: metrics.body, as: UTF8.self).contains(#"gateway_circuit_open{upstream="tour-management"} 1"#),
                "the failures opened the circuit")
        _ = try await platform.waitFor("tour-management restarted") { () -> Bool? in
            guard let service = try? platform.state().service("tour-management"), service.state == .ready,
                  let pid = service.pid, pid != killed else { return nil }
            return true
        }
        let ready = ContinuousClock.now
        _ = try await platform.waitFor("routed to tour-management again", timeout: .seconds(30)) { () -> Bool? in
            try await api.send(.GET, "/v1/me/tours", token: traveller.token).status == 200 ? true : nil
        }
        let outage = ContinuousClock.now - ready
        #expect(outage < .seconds(2), "routed again \(outage) after tour-management was ready")

        // The probe's crash: 6 MiB anonymous uploads answered 401 before they are read. 60 of them, four at a time, leave
        // the gateway process answering, with its memory flat (a leak of the bodies would be hundreds of MiB).
        let gatewayPid = try #require(try platform.state().service("gateway")?.pid)
        let sixMiB = Data(count: 6 << 20)
        for _ in 0..<4 { #expect(try await api.send(.POST, "/v1/media", raw: sixMiB).status == 401) }
        let residentBefore = try #require(Self.residentKiB(of: gatewayPid))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var refused = 0
                    for _ in 0..<15 {
                        if try await api.send(.POST, "/v1/media", raw: sixMiB).status == 401 { refused += 1 }
                    }
                    return refused
                }
            }
            var refused = 0
            for try await count in group { refused += count }
            #expect(refused == 60)
        }
        #expect(try await api.send(.GET, "/health/live").status == 200)
        #expect(try platform.state().service("gateway")?.pid == gatewayPid, "the gateway was not restarted")
        let residentAfter = try #require(Self.residentKiB(of: gatewayPid))
        #expect(residentAfter - residentBefore < 64 * 1024, "gateway RSS \(residentBefore) → \(residentAfter) KiB")

        // Restart every process: nothing acknowledged is lost.
        try await platform.stop()
        try await platform.start()
        let restarted = try await platform.waitFor("figures after the restart", timeout: .seconds(20)) { () -> Figures? in
            let reply = try await api.send(.GET, "/v1/analytics/guides/me/summary", token: guide.token)
            return reply.status == 200 ? Figures(reply.json) : nil
        }
        #expect(restarted == figures)
        let mine = try await api.send(.GET, "/v1/me/tours", token: traveller.token)
        #expect((mine.json["tours"] as? [[String: Any]])?.contains { $0["tourId"] as? String == tourId } == true, "the entitlement survived")
        let reviews = try await api.send(.GET, "/v1/tours/\(tourId)/reviews")
        #expect(String(decoding: reviews.body, as: UTF8.self).contains("Wonderful walk."))
        let search = try await api.send(.GET, "/v1/tours?q=\("steiner piaristen".addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)")
        #expect((search.json["tours"] as? [[String: Any]])?.contains { $0["id"] as? String == tourId } == true, "the tour is still found")
        let progress = try await api.send(.GET, "/v1/tours/\(tourId)/progress", token: traveller.token)
        #expect(progress.json["completedStops"] as? Int == 3)

        // Logout ends the token everywhere: tour-management (and the gateway's edge) refuse it within a second of auth's
        // 204, although it has not expired.
        #expect(try await api.send(.POST, "/v1/auth/logout", token: traveller.token).status == 204)
        let loggedOut = ContinuousClock.now
        _ = try await platform.waitFor("the revoked token refused", timeout: .seconds(20)) { () -> Bool? in
            try await api.send(.GET, "/v1/me/tours", token: traveller.token).status == 401 ? true : nil
        }
        let revocationLag = ContinuousClock.now - loggedOut
        // The guarantee is a second; the bound allows one more for a loaded test machine (the lag is printed).
        print("journey[\(variant)]: the logged-out token was refused through the gateway after \(revocationLag)")
        #expect(revocationLag < .seconds(2), "a logged-out token was accepted for \(revocationLag)")

        try await platform.stop()
        finished = true
        if let database { try await database.verifyAndDrop(platform) }
    }

    /// `VmRSS` of process `pid`, KiB.
    static func residentKiB(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    /// The figures the journey checks, from `GET /v1/analytics/guides/me/summary`.
    struct Figures: Equatable, Sendable {
        var views: Int
        var purchases: Int
        var completions: Int
        var starts: Int
        var ratingCount: Int
        var ratingAverage: Double?
        var gross: Int

        init(_ json: [String: Any]) {
            views = json["views"] as? Int ?? 0
            purchases = json["purchases"] as? Int ?? 0
            completions = json["completions"] as? Int ?? 0
            starts = json["starts"] as? Int ?? 0
            let rating = json["rating"] as? [String: Any]
            ratingCount = rating?["count"] as? Int ?? 0
            ratingAverage = rating?["average"] as? Double
            gross = ((json["sales"] as? [[String: Any]]) ?? []).compactMap { $0["grossMinor"] as? Int }.reduce(0, +)
        }
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
