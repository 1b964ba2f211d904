import AsyncHTTPClient
import Foundation
import Geo
import Logging
import NIOHTTP1
import RoadNetwork

/// What the bike mix needs before it starts, made on the launched platform through the public APIs (untimed): rider
/// accounts, moderators, approved paths, a navigation session per rider and a trip per rider.
///
/// Everything goes through the gateway except sign-up and sign-in, which go to auth directly: the gateway limits
/// `/v1/auth/*` to 100 requests a minute per client address (`docs/gateway.md`), and the setup is one address making a
/// thousand accounts — a burst that limit exists to stop, not the workload being measured. The administrator who makes
/// the moderators is created before the platform starts (`auth create-admin`, ``GatewayBench``).
struct BikeSetup: Sendable {
    /// The gateway's and auth's base URLs.
    let gateway: BenchHTTP
    let auth: BenchHTTP
    let logger: Logger

    /// Every account's password (auth's rules: 8–128 characters, an upper-case letter and a digit).
    static let password = "Waypoint-Bench-2026"
    /// The administrator `auth create-admin` makes before the start.
    static let administrator = (username: "benchadmin", email: "bench-admin@example.com")
    /// Requests of the setup in flight at once.
    static let width = 16

    /// A signed-in account.
    struct Account: Sendable {
        var id: String
        var token: String
        var refreshToken: String
        /// When its access token was issued (auth's live 15 minutes).
        var issued: ContinuousClock.Instant
    }

    // MARK: Accounts

    /// `count` new riders (`rider0`, `rider1`, …; role traveller), each registered and signed in at auth.
    func riders(_ count: Int) async throws -> [Account] {
        let clock = ContinuousClock(), started = clock.now
        let accounts = try await Self.concurrently(Array(0..<count)) { index in
            try await register(username: "rider\(index)", email: "rider\(index)@bench.example.com")
        }
        logger.info("bike setup: \(count) riders registered and signed in (at auth directly) in \(secondsText(clock.now - started)) s")
        return accounts
    }

    /// Paths one moderator reviews: a claim and a decision each, so 200 requests — a third of the gateway's default
    /// per-user limit (600 a minute).
    static let pathsPerModerator = 100

    /// The access tokens of `count` moderators: `benchmoderator0`, … registered, granted `moderator` by the
    /// administrator through the gateway (`PUT /v1/users/{id}/roles/moderator`), then signed in (the role is in tokens
    /// issued after the grant).
    func moderators(_ count: Int) async throws -> [String] {
        let admin = try await signIn(email: Self.administrator.email)
        return try await Self.concurrently(Array(0..<count)) { index in
            let email = "bench-moderator\(index)@bench.example.com"
            let account = try await register(username: "benchmoderator\(index)", email: email)
            _ = try await gateway.send(.PUT, "/v1/users/\(account.id)/roles/moderator", body: nil, token: admin.token, expect: [.ok])
            let moderator = try await signIn(email: email)
            guard try Self.claims(of: moderator.token)["role"] as? String == "moderator" else {
                throw BenchError("bike setup: a moderator's token does not carry the moderator role")
            }
            return moderator.token
        }
    }

    /// The same accounts with new access tokens (`POST /v1/auth/refresh`, no password check), for a run whose setup took
    /// long enough that the first ones would expire during the load.
    func refreshed(_ accounts: [Account]) async throws -> [Account] {
        try await Self.concurrently(accounts) { account in
            let body = try JSONSerialization.data(withJSONObject: ["refreshToken": account.refreshToken, "deviceId": "waypoint-bench"])
            let issued = ContinuousClock.now
            let answer = try await auth.send(.POST, "/v1/auth/refresh", body: body, token: nil, expect: [.ok])
            return try Self.account(from: answer, id: account.id, issued: issued)
        }
    }

    private func register(username: String, email: String) async throws -> Account {
        let body = try JSONSerialization.data(withJSONObject: ["username": username, "email": email, "password": Self.password, "role": "traveller"])
        let answer = try await auth.send(.POST, "/v1/auth/register", body: body, token: nil, expect: [.created])
        guard let id = try Self.object(answer)["id"] as? String else { throw BenchError("register answered no id") }
        return try await signIn(email: email, id: id)
    }

    private func signIn(email: String, id: String? = nil) async throws -> Account {
        let body = try JSONSerialization.data(withJSONObject: ["email": email, "password": Self.password, "deviceId": "waypoint-bench"])
        let issued = ContinuousClock.now
        let answer = try await auth.send(.POST, "/v1/auth/login", body: body, token: nil, expect: [.ok])
        return try Self.account(from: answer, id: id, issued: issued)
    }

    private static func account(from answer: Data, id: String?, issued: ContinuousClock.Instant) throws -> Account {
        let object = try object(answer)
        guard let token = object["accessToken"] as? String, let refresh = object["refreshToken"] as? String,
              let user = (object["user"] as? [String: Any])?["id"] as? String ?? id else {
            throw BenchError("a sign-in answered without tokens")
        }
        return Account(id: user, token: token, refreshToken: refresh, issued: issued)
    }

    // MARK: Approved paths

    /// A draft per pair by the riders in turn (one drawn line between the pair's points, routed by path-review's
    /// planner), published, claimed and approved by the moderators in turn (``pathsPerModerator`` each) — all through the
    /// gateway. Drafts the planner refuses (422) are skipped and counted. Returns the number approved.
    func approvedPaths(_ pairs: [(city: Int, from: RoadPoint, to: RoadPoint)], authors: [Account], moderators: [String]) async throws -> Int {
        let clock = ContinuousClock(), started = clock.now
        let conditions = ["optimal", "optimal", "medium", "medium", "sufficient"]
        let outcomes = try await Self.concurrently(Array(pairs.enumerated())) { index, pair -> Bool in
            let author = authors[index % authors.count].token, moderator = moderators[index % moderators.count]
            let line: [[String: Double]] = [["lat": pair.from.latitude, "lng": pair.from.longitude], ["lat": pair.to.latitude, "lng": pair.to.longitude]]
            let draft: [String: Any] = ["name": "Bench bike path \(index + 1)", "condition": conditions[index % conditions.count], "pieces": [["line": line]]]
            let created = try await gateway.send(.POST, "/v1/paths/drafts", body: try JSONSerialization.data(withJSONObject: draft), token: author,
                                                 expect: [.created, .unprocessableEntity])
            guard let id = try Self.object(created)["id"] as? String else { return false }
            _ = try await gateway.send(.POST, "/v1/paths/drafts/\(id)/publish", body: nil, token: author, expect: [.ok])
            _ = try await gateway.send(.POST, "/v1/paths/review-queue/\(id)/claim", body: nil, token: moderator, expect: [.ok])
            _ = try await gateway.send(.POST, "/v1/paths/review-queue/\(id)/decision", body: Data(#"{"outcome":"approve"}"#.utf8), token: moderator,
                                       expect: [.ok])
            return true
        }
        let approved = outcomes.count { $0 }
        logger.info("""
            bike setup: \(approved) paths drafted by the riders and approved by the moderators (\(moderators.count)) through the gateway \
            (\(pairs.count - approved) drafts refused by the planner) in \(secondsText(clock.now - started)) s
            """)
        return approved
    }

    /// Waits until the public listing of `box` (the whole city) shows `count` paths, or 500 with `truncated` (the
    /// `approved_paths` read model catches up after the approvals).
    func waitForListing(_ count: Int, box: BoxQuery) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        let path = "/v1/paths?bbox=\(box.west),\(box.south),\(box.east),\(box.north)&limit=500"
        var listed = 0
        while ContinuousClock.now < deadline {
            let object = try Self.object(try await gateway.send(.GET, path, body: nil, token: nil, expect: [.ok]))
            listed = (object["features"] as? [Any])?.count ?? 0
            if listed >= min(count, 500) || object["truncated"] as? Bool == true { return }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw BenchError("bike setup: the path listing shows \(listed) of \(count) approved paths after 120 s")
    }

    // MARK: Sessions and trips

    /// A navigation session per rider through the gateway (`POST /v1/navigation/sessions`), rider `i` on `pairs[i]`; a
    /// start the service refuses (no route) takes the next spare pair. Each rider's route is read from the answer
    /// (polyline6).
    func sessions(_ riders: [Account], pairs: [(city: Int, from: RoadPoint, to: RoadPoint)]) async throws -> [BikeWorkload.Rider] {
        guard pairs.count >= riders.count else { throw BenchError("bike setup: \(pairs.count) pairs for \(riders.count) riders") }
        let clock = ContinuousClock(), started = clock.now
        var opened = try await Self.concurrently(Array(riders.enumerated())) { index, rider in
            try await session(rider, pairs[index])
        }
        var spare = pairs.dropFirst(riders.count).makeIterator()
        var refused = 0
        for index in opened.indices where opened[index] == nil {
            while opened[index] == nil {
                refused += 1
                guard let pair = spare.next() else { throw BenchError("bike setup: no route for \(refused) session starts, no spare pair left") }
                opened[index] = try await session(riders[index], pair)
            }
        }
        logger.info("""
            bike setup: \(riders.count) navigation sessions started through the gateway (\(refused) starts refused) in \
            \(secondsText(clock.now - started)) s
            """)
        return opened.map { $0! }
    }

    private func session(_ rider: Account, _ pair: (city: Int, from: RoadPoint, to: RoadPoint)) async throws -> BikeWorkload.Rider? {
        let body = Data(NavigationRequests.sessionBody(from: pair.from, to: pair.to).utf8)
        let answer = try await gateway.send(.POST, "/v1/navigation/sessions", body: body, token: rider.token, expect: [.created, .unprocessableEntity])
        let object = try Self.object(answer)
        guard let id = (object["id"] as? String).flatMap(UUID.init(uuidString:)) else { return nil }
        guard let geometry = (object["route"] as? [String: Any])?["geometry"] as? String else {
            throw BenchError("bike setup: a session answered without its route's geometry")
        }
        let line = try Polyline(encoded: geometry, precision: .six)
        return BikeWorkload.Rider(token: rider.token, session: id, ride: RideAlong(points: line.coordinates.map { [$0.latitude, $0.longitude] }))
    }

    /// A trip per rider through the gateway (`POST /v1/trips` linked to the rider's session), as the app starts
    /// recording when navigation starts.
    func trips(_ riders: [BikeWorkload.Rider]) async throws -> [BikeWorkload.Trip] {
        let clock = ContinuousClock(), started = clock.now
        let trips = try await Self.concurrently(Array(riders.enumerated())) { index, rider in
            let body = Data(#"{"navigationSessionId":"\#(rider.session.uuidString.lowercased())"}"#.utf8)
            let answer = try await gateway.send(.POST, "/v1/trips", body: body, token: rider.token, expect: [.created])
            guard let id = try Self.object(answer)["id"] as? String else { throw BenchError("POST /v1/trips answered without an id") }
            return BikeWorkload.Trip(rider: index, id: id)
        }
        logger.info("bike setup: \(trips.count) trips started through the gateway in \(secondsText(clock.now - started)) s")
        return trips
    }

    // MARK: Helpers

    /// `body` over `items`, ``width`` at a time; the results in the order of `items`.
    static func concurrently<T: Sendable, R: Sendable>(_ items: [T], _ body: @escaping @Sendable (T) async throws -> R) async throws -> [R] {
        try await withThrowingTaskGroup(of: (Int, R).self) { group in
            var results = [R?](repeating: nil, count: items.count)
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask { (index, try await body(items[index])) }
            }
            while next < min(width, items.count) { add() }
            while let (index, result) = try await group.next() {
                results[index] = result
                if next < items.count { add() }
            }
            return results.map { $0! }
        }
    }

    static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw BenchError("an answer is not a JSON object") }
        return object
    }

    /// The claims of a JWT (its middle part, base64url), unverified: the bench reads the role auth put in.
    static func claims(of token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { throw BenchError("not a JWT") }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else { throw BenchError("a JWT's claims are not base64url") }
        return try object(data)
    }
}
