import Foundation
import Geo
import NIOHTTP1

/// The bike side of the demo, through the public APIs: an administrator (`auth create-admin`), the moderator they
/// grant, a cyclist whose three paths on Krems streets the moderator approves, and one ride the cyclist recorded (a GPX
/// import along the first path). Nothing twice: a path whose draft exists is carried on from its stage (published,
/// claimed and approved as needed), an approved one is kept, and the ride is recorded only when the cyclist has none.
public struct DemoBikeSeeder: Sendable {
    let client: DemoClient
    let authBase: String
    let pathsBase: String
    let tripsBase: String
    let createAdministrator: @Sendable (DemoData.Account) async throws -> Void

    /// What was done, and the credentials, as lines for the console.
    public struct Outcome: Sendable {
        public var approved: [String] = []
        public var kept: [String] = []
        public var rideRecorded = false
        public var summary: [String] {
            ["demo bike: \(approved.count) paths approved, \(kept.count) already there; "
                + (rideRecorded ? "one ride recorded" : "the ride was already there"),
             "demo cyclist:   \(DemoData.cyclist.email) / \(DemoData.cyclist.password)",
             "demo moderator: \(DemoData.moderator.email) / \(DemoData.moderator.password)",
             "demo admin:     \(DemoData.administrator.email) / \(DemoData.administrator.password)"]
        }
    }

    func seed() async throws -> Outcome {
        try await createAdministrator(DemoData.administrator)
        let adminToken = try await client.logIn(DemoData.administrator, base: authBase)
        _ = try await client.signIn(DemoData.moderator, base: authBase)
        let moderatorId = try await userId(token: try await client.logIn(DemoData.moderator, base: authBase))
        _ = try await client.call(.PUT, "\(authBase)/v1/users/\(moderatorId)/roles/moderator", token: adminToken, expect: [200])
        let moderatorToken = try await client.logIn(DemoData.moderator, base: authBase)
        let cyclistToken = try await client.signIn(DemoData.cyclist, base: authBase)

        var outcome = Outcome()
        let drafts = try await client.call(.GET, "\(pathsBase)/v1/paths/drafts?limit=100", token: cyclistToken, expect: [200])
        let existing = (drafts["drafts"] as? [[String: Any]] ?? []).reduce(into: [String: String]()) { found, row in
            if let name = row["name"] as? String, let id = row["id"] as? String { found[name] = id }
        }
        var rideRoute: [Coordinate] = []
        for path in DemoData.paths {
            var draft: [String: Any]
            if let id = existing[path.name] {
                draft = try await client.call(.GET, "\(pathsBase)/v1/paths/drafts/\(id)", token: cyclistToken, expect: [200])
            } else {
                draft = try await create(path, token: cyclistToken)
            }
            guard let id = draft["id"] as? String else { throw LauncherError("a draft of \(path.name) without an id") }
            if path == DemoData.paths.first { rideRoute = Self.coordinates(of: draft) }
            let stage = draft["stage"] as? String ?? "draft"
            if stage == "approved" || stage == "rejected" {
                outcome.kept.append(path.name)
                continue
            }
            if stage == "draft" {
                _ = try await client.call(.POST, "\(pathsBase)/v1/paths/drafts/\(id)/publish", token: cyclistToken, expect: [200])
            }
            _ = try await client.call(.POST, "\(pathsBase)/v1/paths/review-queue/\(id)/claim", token: moderatorToken, expect: [200])
            _ = try await client.call(.POST, "\(pathsBase)/v1/paths/review-queue/\(id)/decision", token: moderatorToken,
                                      body: ["outcome": "approve"], expect: [200])
            outcome.approved.append(path.name)
        }

        let trips = try await client.call(.GET, "\(tripsBase)/v1/trips?limit=1", token: cyclistToken, expect: [200])
        if (trips["trips"] as? [Any])?.isEmpty != false {
            let start = Self.rideStart(now: Date())
            let gpx = Self.gpx(along: rideRoute, start: start, speed: DemoData.rideSpeed, name: DemoData.rideName)
            _ = try await client.send(.POST, "\(tripsBase)/v1/trips/import", token: cyclistToken, raw: Data(gpx.utf8),
                                      contentType: "application/gpx+xml", expect: [201, 202])
            outcome.rideRecorded = true
        }
        return outcome
    }

    /// The caller's id (`GET /v1/users/me`).
    private func userId(token: String) async throws -> String {
        let me = try await client.call(.GET, "\(authBase)/v1/users/me", token: token, expect: [200])
        guard let id = me["id"] as? String else { throw LauncherError("GET /v1/users/me answered no id") }
        return id
    }

    /// Drafts `path` along the longest compatible street of its name; a pothole, when it has one, at the middle of the
    /// route (a second write: the route is known only once the draft is).
    private func create(_ path: DemoData.BikePath, token: String) async throws -> [String: Any] {
        let query = path.street.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? path.street
        let found = try await client.call(.GET, "\(pathsBase)/v1/streets?q=\(query)&limit=100", expect: [200])
        let street = (found["streets"] as? [[String: Any]] ?? [])
            .filter { $0["name"] as? String == path.street && $0["compatible"] as? Bool == true }
            .max { ($0["lengthMetres"] as? Double ?? 0) < ($1["lengthMetres"] as? Double ?? 0) }
        guard let streetId = (street?["id"] as? NSNumber)?.int64Value else {
            throw LauncherError("no compatible street named \(path.street) in the network")
        }
        var content: [String: Any] = [
            "name": path.name, "condition": path.condition, "pieces": [["streetId": streetId]],
            "details": ["segregatedFromCars": path.segregatedFromCars, "surface": path.surface],
        ]
        let created = try await client.send(.POST, "\(pathsBase)/v1/paths/drafts", token: token, body: content, expect: [201])
        guard let note = path.pothole else { return created.json }
        let route = Self.coordinates(of: created.json)
        guard let id = created.json["id"] as? String, let version = created.headers.first(name: "ETag"), !route.isEmpty else {
            throw LauncherError("the draft of \(path.name) answered no id, ETag or route")
        }
        let middle = route[route.count / 2]
        content["obstacles"] = [["type": "pothole", "point": ["lat": middle.latitude, "lng": middle.longitude], "note": note]]
        return try await client.send(.PUT, "\(pathsBase)/v1/paths/drafts/\(id)", token: token, body: content,
                                     headers: ["If-Match": version], expect: [200]).json
    }

    /// A draft's route in order (its GeoJSON LineString, `[lng, lat]`).
    static func coordinates(of draft: [String: Any]) -> [Coordinate] {
        let line = (draft["geometry"] as? [String: Any])?["coordinates"] as? [[Double]] ?? []
        return line.compactMap { $0.count >= 2 ? try? Coordinate(latitude: $0[1], longitude: $0[0]) : nil }
    }

    /// 17:00 UTC of the day before `now`.
    static func rideStart(now: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let today = calendar.startOfDay(for: now)
        return today.addingTimeInterval(-7 * 3_600)
    }

    /// A GPX 1.1 track along `route` at `speed` m/s, one point a second from `start` (Geo's `Polyline.points(every:)`),
    /// elevation 200 m rising 1 m per 100 m ridden.
    static func gpx(along route: [Coordinate], start: Date, speed: Double, name: String) -> String {
        let line = Polyline(route)
        let length = line.length
        let points = line.points(every: speed).enumerated().map { index, point in
            (lat: point.latitude, lng: point.longitude, metres: min(Double(index) * speed, length))
        }
        let formatter = ISO8601DateFormatter()
        let track = points.map { point in
            let time = formatter.string(from: start.addingTimeInterval(point.metres / speed))
            return String(format: #"<trkpt lat="%.7f" lon="%.7f"><ele>%.1f</ele>"#, point.lat, point.lng, 200 + point.metres / 100)
                + "<time>\(time)</time></trkpt>"
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="waypoint up --demo" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>\(name)</name><trkseg>
            \(track)
            </trkseg></trk>
            </gpx>
            """
    }
}
