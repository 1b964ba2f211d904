import Contracts
import EventSourcing
import Foundation
import Geo
import HummingbirdTesting
import Messaging
@testable import Navigation
import RoadNetwork
import ServiceKit
import ServiceTesting
import Testing

/// A simulated ride along a session's route: positions every `spacing` metres along its geometry, at `speed`, with the
/// course of the line — ground truth known by construction (the route's own geometry), optionally pushed sideways.
enum RideAlongRoute {
    static func fixes(_ polyline: String, spacing: Double = 10, speed: Double = 5, start: Date, from: Double = 0, to: Double? = nil,
                      sideways: Double = 0, reversed: Bool = false, accuracy: Double = 5) throws -> [[String: Any]] {
        var points = try Polyline(encoded: polyline, precision: .six).coordinates
        if reversed { points.reverse() }
        var fixes: [[String: Any]] = []
        var travelled = 0.0, next = from
        let end = to ?? .infinity
        for (a, b) in zip(points, points.dropFirst()) {
            let length = a.distance(to: b)
            let bearing = a.initialBearing(to: b)
            while next <= travelled + length, next <= end {
                let t = length > 0 ? (next - travelled) / length : 0
                var lat = a.latitude + t * (b.latitude - a.latitude), lng = a.longitude + t * (b.longitude - a.longitude)
                if sideways != 0 {
                    let side = (bearing + 90) * .pi / 180
                    lat += sideways * cos(side) / 111_319.49
                    lng += sideways * sin(side) / (111_319.49 * cos(lat * .pi / 180))
                }
                let time = start.addingTimeInterval((next - from) / speed)
                fixes.append(["lat": lat, "lng": lng, "accuracy": accuracy, "speed": speed, "course": bearing, "time": Self.rfc3339(time)])
                next += spacing
            }
            travelled += length
        }
        return fixes
    }

    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func body(_ fixes: [[String: Any]]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: ["fixes": fixes]), as: UTF8.self)
    }
}

@Suite("navigation: sessions")
struct SessionTests {
    static let start = #"{"from": {"lat": 48.4093, "lng": 15.6033}, "to": {"lat": 48.4000, "lng": 15.6200}}"#

    @Test("a ride from start to finish: first instruction, progress, each maneuver announced in order once, arrival; events and pushes",
          arguments: TestBackend.enabled)
    func rideToTheEnd(_ backend: TestBackend) async throws {
        try await NavigationApp.withFeeds { feeds in
            try await NavigationApp.serve(backend, feeds: feeds) { client, server in
                let rider = UUID()
                let token = try await TokenForge.token(rider)
                let started = try await client.sendJSON(.post, "/v1/navigation/sessions", json: Self.start, token: token)
                #expect(started.status == 201, "\(started.json)")
                let id = try #require(started.json["id"] as? String)
                #expect(started.headers[.location]?.lowercased() == "/v1/navigation/sessions/\(id.lowercased())")
                let first = try #require(started.json["instruction"] as? [String: Any])
                #expect(first["phase"] as? String == "depart")
                #expect((first["text"] as? String)?.hasPrefix("Head ") == true)
                let route = try #require(started.json["route"] as? [String: Any])
                let geometry = try #require(route["geometry"] as? String)
                let total = try #require(route["distanceM"] as? Double)
                // Maneuvers a rider sending a fix every 10 m must hear: those not within 15 m of the one before.
                let routeSteps = route["steps"] as? [[String: Any]] ?? []
                let turns = routeSteps.indices.dropFirst().filter { (routeSteps[$0 - 1]["distanceM"] as? Double ?? 0) >= 15 }.count
                let fixes = try RideAlongRoute.fixes(geometry, start: Date().addingTimeInterval(-3_600))
                var instructions: [[String: Any]] = []
                var last: [String: Any] = [:]
                // One fix per update, as a phone sends them live.
                for batch in fixes.map({ [$0] }) {
                    let reply = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body(batch), token: token)
                    #expect(reply.status == 200, "\(reply.json)")
                    if let instruction = reply.json["instruction"] as? [String: Any] { instructions.append(instruction) }
                    #expect(reply.json["rerouted"] == nil, "riding the route never reroutes: \(reply.json)")
                    last = reply.json
                    if reply.json["arrived"] as? Bool == true { break }
                }
                #expect(last["arrived"] as? Bool == true)
                #expect(last["status"] as? String == "arrived")
                #expect(instructions.last?["phase"] as? String == "arrive")
                #expect(instructions.last?["text"] as? String == "You have arrived at your destination")
                // Every maneuver is announced, in route order, and no (step, phase) twice.
                let keys = instructions.map { "\($0["stepIndex"] as? Int ?? -1):\($0["phase"] as? String ?? "")" }
                #expect(Set(keys).count == keys.count, "no instruction twice: \(keys)")
                let steps = instructions.compactMap { $0["stepIndex"] as? Int }
                #expect(steps == steps.sorted(), "in route order: \(steps)")
                #expect(Set(steps).count >= turns, "every maneuver announced at least once: \(Set(steps).count) of \(turns)")
                let progress = try #require(last["progress"] as? [String: Any])
                #expect((progress["distanceRemainingM"] as? Double ?? 999) <= 25)
                #expect(abs((progress["riddenM"] as? Double ?? 0) - total) < 40)
                // The session's published language and the pushes.
                let stream = try await server.storage.store.readStream(NavigationSessionAggregate.streamID(UUID(uuidString: id)!))
                let types = stream.map(\.eventType)
                #expect(types.contains(NavigationSessionStarted.eventType) && types.contains(NavigationArrived.eventType))
                let pushed = try await eventually {
                    try await server.storage.store.readStream(UserNotifications.streamID(user: rider)).count == instructions.count + 1
                }
                #expect(pushed, "the departure and every instruction pushed once")
                let ended = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/end", json: #"{"tripId": "0b57ac1e-0000-4000-8000-000000000001"}"#, token: token)
                #expect(ended.status == 200)
                #expect(ended.json["status"] as? String == "ended")
                #expect(ended.json["tripId"] as? String == "0B57AC1E-0000-4000-8000-000000000001" || ended.json["tripId"] as? String == "0b57ac1e-0000-4000-8000-000000000001")
                let after = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body([fixes[0]]), token: token)
                #expect(after.status == 409)
                #expect(after.json["code"] as? String == "session-ended")
            }
        }
    }

    @Test("off route: three usable fixes 60 m beside the route reroute from there; poor-accuracy fixes never do; counted in the session")
    func offRoute() async throws {
        try await NavigationApp.with { client, _, _ in
            let token = try await TokenForge.token(UUID())
            let started = try await client.sendJSON(.post, "/v1/navigation/sessions", json: Self.start, token: token)
            let id = try #require(started.json["id"] as? String)
            let recents = try await client.waitForJSON("/v1/places/recent", token: token, "the destination is a recent place") {
                ($0["recents"] as? [[String: Any]])?.count == 1
            }
            #expect((recents["recents"] as? [[String: Any]])?.first?["kind"] as? String == "navigated")
            let geometry = try #require((started.json["route"] as? [String: Any])?["geometry"] as? String)
            let now = Date().addingTimeInterval(-3_600)
            let onRoute = try RideAlongRoute.fixes(geometry, start: now, to: 200)
            _ = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body(onRoute), token: token)
            let poor = try RideAlongRoute.fixes(geometry, start: now.addingTimeInterval(41), from: 210, to: 260, sideways: 80, accuracy: 80)
            let ignored = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body(poor), token: token)
            #expect(ignored.status == 200)
            #expect(ignored.json["rerouted"] == nil, "poor fixes never reroute")
            let beside = try RideAlongRoute.fixes(geometry, start: now.addingTimeInterval(60), from: 270, to: 300, sideways: 60)
            #expect(beside.count >= 3)
            let two = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body(Array(beside.prefix(2))), token: token)
            #expect(two.json["rerouted"] == nil, "two fixes are not yet off route")
            let third = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body([beside[2]]), token: token)
            #expect(third.json["rerouted"] as? String == "off-route", "\(third.json)")
            #expect(third.json["reroutes"] as? Int == 1)
            #expect((third.json["route"] as? [String: Any])?["geometry"] is String)
            #expect(["depart", "alert", "pre-turn", "now"].contains((third.json["instruction"] as? [String: Any])?["phase"] as? String ?? ""),
                    "the new route's first instruction, or an announcement already due on it")
            let session = try await client.sendJSON(.get, "/v1/navigation/sessions/\(id)", token: token)
            #expect(session.json["reroutes"] as? Int == 1)
        }
    }

    @Test("wrong way: riding the route backwards at speed reroutes after three fixes")
    func wrongWay() async throws {
        try await NavigationApp.with { client, _, _ in
            let token = try await TokenForge.token(UUID())
            let started = try await client.sendJSON(.post, "/v1/navigation/sessions", json: Self.start, token: token)
            let id = try #require(started.json["id"] as? String)
            let geometry = try #require((started.json["route"] as? [String: Any])?["geometry"] as? String)
            let total = try #require((started.json["route"] as? [String: Any])?["distanceM"] as? Double)
            let forward = try RideAlongRoute.fixes(geometry, start: Date().addingTimeInterval(-3_600), to: 400)
            _ = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body(forward), token: token)
            // Back along the same line: from 390 m down to 340 m after the start.
            let back = try RideAlongRoute.fixes(geometry, start: Date().addingTimeInterval(-3_000), from: total - 390, to: total - 340, reversed: true)
            let reply = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body(back), token: token)
            #expect(reply.json["rerouted"] as? String == "wrong-way", "\(reply.json)")
        }
    }

    @Test("bad input: someone else's session, unknown ids, 1970 and the future, 101 or 10,000 fixes, bad fields, pause/resume rules")
    func badInput() async throws {
        try await NavigationApp.with { client, _, _ in
            let token = try await TokenForge.token(UUID())
            let other = try await TokenForge.token(UUID())
            #expect(try await client.sendJSON(.post, "/v1/navigation/sessions", json: Self.start).status == 401)
            let started = try await client.sendJSON(.post, "/v1/navigation/sessions", json: Self.start, token: token)
            let id = try #require(started.json["id"] as? String)
            let fix = #"{"lat": 48.4093, "lng": 15.6033, "time": "%@"}"#
            func body(_ time: String) -> String { #"{"fixes": [\#(fix.replacingOccurrences(of: "%@", with: time))]}"# }
            let now = RideAlongRoute.rfc3339(Date())
            let foreign = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: body(now), token: other)
            #expect(foreign.status == 404)
            #expect(try await client.sendJSON(.get, "/v1/navigation/sessions/\(id)", token: other).status == 404)
            #expect(try await client.sendJSON(.post, "/v1/navigation/sessions/\(UUID())/positions", json: body(now), token: token).status == 404)
            #expect(try await client.sendJSON(.post, "/v1/navigation/sessions/not-a-uuid/pause", token: token).status == 404)
            let old = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: body("1970-01-01T00:00:00Z"), token: token)
            #expect(old.status == 422)
            #expect(NavigationApp.fields(old.json) == ["fixes[0].time"])
            let future = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: body("2099-01-01T00:00:00Z"), token: token)
            #expect(future.status == 422)
            let many = #"{"fixes": [\#(Array(repeating: fix.replacingOccurrences(of: "%@", with: now), count: 101).joined(separator: ","))]}"#
            let tooMany = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: many, token: token)
            #expect(tooMany.status == 422)
            #expect(NavigationApp.fields(tooMany.json) == ["fixes"])
            let huge = #"{"fixes": [\#(Array(repeating: fix.replacingOccurrences(of: "%@", with: now), count: 10_000).joined(separator: ","))]}"#
            let hugeReply = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: huge, token: token)
            #expect([413, 422].contains(hugeReply.status), "10,000 fixes: \(hugeReply.status)")
            let fields = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions",
                                                   json: #"{"fixes": [{"lat": 91, "lng": 15, "accuracy": -1, "speed": 1000, "course": 360, "time": "\#(now)"}]}"#, token: token)
            #expect(Set(NavigationApp.fields(fields.json)) == ["fixes[0].lat", "fixes[0].accuracy", "fixes[0].speed", "fixes[0].course"])
            #expect(try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: "[1,2", token: token).status == 400)
            let badStart = try await client.sendJSON(.post, "/v1/navigation/sessions", json: #"{"from": {"lat": 100, "lng": 0}, "alternative": 7, "lang": "xx"}"#, token: token)
            #expect(Set(NavigationApp.fields(badStart.json)) == ["from.lat", "to", "alternative", "lang"])
            let nowhere = try await client.sendJSON(.post, "/v1/navigation/sessions", json: #"{"from": {"lat": 48.4093, "lng": 15.6033}, "to": {"lat": 48.55, "lng": 15.4}}"#, token: token)
            #expect(nowhere.json["code"] as? String == "NoSegment")
            let paused = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/pause", token: token)
            #expect(paused.json["status"] as? String == "paused")
            let whilePaused = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: body(now), token: token)
            #expect(whilePaused.status == 409)
            #expect(whilePaused.json["code"] as? String == "session-paused")
            #expect(try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/resume", token: token).json["status"] as? String == "active")
            let current = try await client.waitForJSON("/v1/navigation/sessions/current", token: token) { $0["id"] as? String == id }
            #expect(current["status"] as? String == "active")
            #expect(try await client.sendJSON(.get, "/v1/navigation/sessions/current", token: other).status == 404)
        }
    }

    @Test("a second instance over the same store continues a session another started, from the log")
    func anotherInstanceContinues() async throws {
        try await NavigationApp.withFeeds { feeds in
            let directory = TemporaryDirectory("waypoint-navigation-shared")
            defer { directory.remove() }
            let runtime = try TestBackend.sqlite.runtime("navigation", in: directory)
            let token = try await TokenForge.token(UUID())
            let started = Captured<(String, String)>(("", ""))
            try await NavigationApp.serve(runtime, feeds: feeds) { client, _ in
                let reply = try await client.sendJSON(.post, "/v1/navigation/sessions", json: Self.start, token: token)
                started.value = (try #require(reply.json["id"] as? String), try #require((reply.json["route"] as? [String: Any])?["geometry"] as? String))
                let fixes = try RideAlongRoute.fixes(started.value.1, start: Date().addingTimeInterval(-3_600), to: 100)
                #expect(try await client.sendJSON(.post, "/v1/navigation/sessions/\(started.value.0)/positions", json: try RideAlongRoute.body(fixes), token: token).status == 200)
            }
            try await NavigationApp.serve(runtime, feeds: feeds) { client, _ in
                let (id, geometry) = started.value
                let session = try await client.sendJSON(.get, "/v1/navigation/sessions/\(id)", token: token)
                #expect((session.json["progress"] as? [String: Any])?["alongM"] as? Double ?? 0 > 80, "acknowledged positions are kept")
                let more = try RideAlongRoute.fixes(geometry, start: Date().addingTimeInterval(-3_000), from: 110, to: 200)
                let reply = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body(more), token: token)
                #expect(reply.status == 200)
                #expect((reply.json["progress"] as? [String: Any])?["alongM"] as? Double ?? 0 > 180)
            }
        }
    }

    @Test("an instance decides on the session it holds, and on the log when another instance changed it meanwhile")
    func heldSessionBehindTheLog() async throws {
        try await NavigationApp.with { client, server, _ in
            let rider = UUID()
            let token = try await TokenForge.token(rider)
            let reply = try await client.sendJSON(.post, "/v1/navigation/sessions", json: Self.start, token: token)
            let idText = try #require(reply.json["id"] as? String)
            let id = try #require(UUID(uuidString: idText))
            let geometry = try #require((reply.json["route"] as? [String: Any])?["geometry"] as? String)
            // Milliseconds that the log's microsecond dates round: "not newer" must compare alike on a held and on a
            // reloaded session (a resent batch below is decided on the session reloaded from the log).
            let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3_600).rounded(.down) + 0.123_457)
            let ride = try RideAlongRoute.fixes(geometry, start: start, to: 300).map { fix in
                PositionFix(latitude: fix["lat"] as! Double, longitude: fix["lng"] as! Double, accuracy: fix["accuracy"] as? Double,
                            speed: fix["speed"] as? Double, course: fix["course"] as? Double,
                            time: ISO8601DateFormatter.withFractions.date(from: fix["time"] as! String)!)
            }
            let a = server.sessions
            let b = NavigationSessions(store: a.store, planner: a.planner, logger: NavigationApp.quiet)
            let first = try await a.track(id, rider: rider, fixes: Array(ride[0..<5]))
            // B (another instance) moves the session on; A's copy is now behind the log.
            let second = try await b.track(id, rider: rider, fixes: Array(ride[5..<15]))
            #expect(second.state.along > first.state.along)
            let third = try await a.track(id, rider: rider, fixes: Array(ride[15..<20]))
            #expect(third.applied == 5)
            #expect(third.state.along > second.state.along, "decided after B's batch, not on A's stale copy")
            #expect(third.state.ridden > second.state.ridden)
            // A batch B already applied changes nothing, and A answers with the session as the log has it.
            let fourth = try await b.track(id, rider: rider, fixes: Array(ride[20..<25]))
            let resent = try await a.track(id, rider: rider, fixes: Array(ride[20..<25]))
            #expect(resent.applied == 0)
            #expect(resent.state.along == fourth.state.along)
            // Paused and resumed on B: A refuses while paused and takes fixes again once resumed.
            _ = try await b.execute(.pause(rider: rider, at: Date()), on: id)
            await #expect(throws: SessionError.notActive(.paused)) { try await a.track(id, rider: rider, fixes: Array(ride[25..<27])) }
            _ = try await b.execute(.resume(rider: rider, at: Date()), on: id)
            #expect(try await a.track(id, rider: rider, fixes: Array(ride[27..<30])).applied == 3)
            // Another rider's session stays unknown, held or not.
            await #expect(throws: SessionError.notFound) { try await a.track(id, rider: UUID(), fixes: Array(ride[30..<31])) }
            // Every acknowledged batch is in the log, one PositionsTracked each.
            let tracked = try await a.store.readStream(NavigationSessionAggregate.streamID(id), fromVersion: 1).filter { $0.eventType == "PositionsTracked" }
            #expect(tracked.count == 5)
        }
    }
}

@Suite("navigation: a resent fix is not newer than itself after the log rounded it")
struct FixTimeTests {
    @Test("times the log's microseconds round down still compare as the same fix; a microsecond later is newer")
    func rounded() throws {
        // Millisecond times (as a request's fix carries them) whose trip through an event in the log comes back a hair
        // earlier: the log writes RFC 3339 at microseconds and reads them back in another reference frame.
        struct Stored: Codable { var at: Date }
        func throughTheLog(_ date: Date) throws -> Date {
            try EventJSON.decode(Stored.self, from: try EventJSON.encode(Stored(at: date))).at
        }
        let base = 1_790_000_000.0
        let rounded = try (0..<20_000).map { Date(timeIntervalSince1970: base + Double($0) / 1_000) }.filter { try throughTheLog($0) < $0 }
        #expect(rounded.count > 100, "such times are common")
        for time in rounded.prefix(200) {
            let stored = try throughTheLog(time)
            #expect(time > stored, "the raw comparison would call the resent fix new")
            #expect(!NavigationSessions.isNewer(time, than: stored))
            #expect(NavigationSessions.isNewer(time.addingTimeInterval(0.000_001), than: stored))
        }
        #expect(NavigationSessions.isNewer(Date(), than: nil))
    }
}

@Suite("navigation: pushed guidance passes over positions without an instruction")
struct SessionNotificationFilterTests {
    static func envelope(_ payload: some EventPayload) throws -> EventEnvelope {
        let event = try payload.newEvent()
        return EventEnvelope(eventID: event.eventID, streamID: "navigation-session-x", streamVersion: 2, position: 7, eventType: event.eventType,
                             schemaVersion: event.schemaVersion, payload: event.payload, metadata: event.metadata, recordedAt: Date())
    }

    static func tracked(_ instruction: IssuedInstruction?) -> PositionsTracked {
        PositionsTracked(sessionId: UUID(), riderId: UUID(), fixes: 1, lastFixAt: Date(), along: 120, ridden: 120, offRouteStreak: 0, wrongWayStreak: 0,
                         targetsReached: 0, announced: ["1:alert"], instruction: instruction, offset: 2)
    }

    @Test("without an instruction: not decoded, no notification; with one: notified as before")
    func positions() throws {
        let plain = try Self.envelope(Self.tracked(nil))
        #expect(!SessionNotificationRules.mayNotify(plain))
        #expect(try SessionNotificationRules.notification(for: plain) == nil)
        let instruction = IssuedInstruction(stepIndex: 1, phase: "alert", text: "In 150 metres, turn left onto Ringstraße", maneuver: "turn",
                                            modifier: "left", distance: 150)
        let given = try Self.envelope(Self.tracked(instruction))
        #expect(SessionNotificationRules.mayNotify(given))
        let notified = try #require(try SessionNotificationRules.notification(for: given))
        #expect(notified.kind == .navigationInstruction)
        #expect(notified.title == instruction.text)
        // A stored PositionsTracked whose payload names the key without a value is decoded, and notifies nothing.
        var explicitNull = plain
        explicitNull.payload = Data(String(decoding: plain.payload, as: UTF8.self).replacingOccurrences(of: "{", with: #"{"instruction":null,"#, options: .anchored).utf8)
        #expect(SessionNotificationRules.mayNotify(explicitNull))
        #expect(try SessionNotificationRules.notification(for: explicitNull) == nil)
        // Types that never notify are not decoded even when their payload is unreadable.
        let paused = EventEnvelope(eventID: UUID(), streamID: "navigation-session-x", streamVersion: 3, position: 8, eventType: "SessionPaused",
                                   schemaVersion: 1, payload: Data("not json".utf8), metadata: .init(), recordedAt: Date())
        #expect(try SessionNotificationRules.notification(for: paused) == nil)
    }
}

private extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
