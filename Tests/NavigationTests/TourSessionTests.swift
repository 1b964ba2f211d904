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

/// Tour navigation: a tour published and bought on `waypoint.tours` (tour-management stand-in), its stops triggered once
/// each as the traveller rides through them, pushed, and published for tour-management's progress.
@Suite("navigation: tour sessions")
struct TourSessionTests {
    /// Stops placed on the station → south route at 700 m, 1,800 m and its end (ground truth: the route's own
    /// geometry), trigger radius 30 m.
    static func stops(along polyline: String) throws -> [TourStop] {
        let line = try Polyline(encoded: polyline, precision: .six)
        let points = line.coordinates
        var stops: [TourStop] = []
        var travelled = 0.0
        var wanted = [700.0, 1_800.0]
        for (a, b) in zip(points, points.dropFirst()) {
            let length = a.distance(to: b)
            while let next = wanted.first, next <= travelled + length {
                let t = (next - travelled) / length
                stops.append(Self.stop("Stop \(stops.count + 1)", a.latitude + t * (b.latitude - a.latitude), a.longitude + t * (b.longitude - a.longitude)))
                wanted.removeFirst()
            }
            travelled += length
        }
        stops.append(Self.stop("Stop 3", points.last!.latitude, points.last!.longitude))
        return stops
    }

    static func stop(_ name: String, _ lat: Double, _ lng: Double) -> TourStop {
        TourStop(stopId: UUID(), name: name, description: "", location: LatLng(lat: lat, lng: lng), triggerRadiusMetres: 30, media: [])
    }

    static func publish(_ tour: UUID, guide: UUID, stops: [TourStop], buyer: UUID, on feed: ProducerFeedStub) async throws {
        let details = TourDetails(title: "Krems by bike", description: "", destinationId: 1, themes: [.history], languages: ["en"],
                                  price: Money(amountMinor: 900, currency: CurrencyCode("EUR")!), estimatedMinutes: 60, difficulty: .easy, mode: .bike)
        try await feed.publish(TourPublished(tourId: tour, guideId: guide, revision: 1, details: details, stops: stops, lengthMetres: 3_000,
                                             publishedAt: Date()), on: "tour-\(tour)")
        try await feed.publish(TourAcquired(tourId: tour, userId: buyer, guideId: guide, revision: 1, acquiredAt: Date()), on: "tour-\(tour)-\(buyer)")
    }

    @Test("each stop triggers once as the traveller rides through it (jitter at the radius' edge does not trigger again); pushed and published",
          arguments: TestBackend.enabled)
    func stopsTriggerOnce(_ backend: TestBackend) async throws {
        try await NavigationApp.withFeeds { feeds in
            try await NavigationApp.serve(backend, feeds: feeds) { client, server in
                let traveller = UUID(), guide = UUID(), tour = UUID()
                let token = try await TokenForge.token(traveller)
                // The route the stops are placed on.
                let probe = try await client.sendJSON(.post, "/v1/navigation/sessions", json: SessionTests.start, token: token)
                let geometry = try #require((probe.json["route"] as? [String: Any])?["geometry"] as? String)
                let stops = try Self.stops(along: geometry)
                try await Self.publish(tour, guide: guide, stops: stops, buyer: traveller, on: feeds.tours)
                let body = #"{"tourId": "\#(tour)", "from": {"lat": 48.4093, "lng": 15.6033}}"#
                let started = try await waitForStart(client, body: body, token: token)
                let id = try #require(started["id"] as? String)
                #expect(started["kind"] as? String == "tour")
                #expect(((started["tour"] as? [String: Any])?["stops"] as? [Any])?.count == 3)
                let sessionGeometry = try #require((started["route"] as? [String: Any])?["geometry"] as? String)
                var reached: [String] = []
                let fixes = try RideAlongRoute.fixes(sessionGeometry, start: Date().addingTimeInterval(-3_600))
                for fix in fixes {
                    let reply = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body([fix]), token: token)
                    reached += (reply.json["stopsReached"] as? [String] ?? [])
                    if reply.json["arrived"] as? Bool == true { break }
                }
                #expect(reached.map { $0.lowercased() } == stops.map { $0.stopId.uuidString.lowercased() }, "each stop once, in order")
                // Jitter around the first stop's radius after the fact: nothing triggers again.
                let first = stops[0].location
                let jitter = (0..<6).map { i -> [String: Any] in
                    ["lat": first.lat + (i % 2 == 0 ? 0.00025 : 0.0002), "lng": first.lng, "accuracy": 5, "time": RideAlongRoute.rfc3339(Date().addingTimeInterval(Double(i) - 30))]
                }
                let again = try await client.sendJSON(.post, "/v1/navigation/sessions/\(id)/positions", json: try RideAlongRoute.body(jitter), token: token)
                #expect((again.json["stopsReached"] as? [String] ?? []).isEmpty)
                let stream = try await server.storage.store.readStream(NavigationSessionAggregate.streamID(UUID(uuidString: id)!))
                #expect(stream.filter { $0.eventType == TourStopReached.eventType }.count == 3)
                let pushed = try await eventually {
                    try await server.storage.store.readStream(UserNotifications.streamID(user: traveller))
                        .compactMap { try? $0.decode(UserNotified.self) }.filter { $0.kind == .tourStopReached }.count == 3
                }
                #expect(pushed, "each stop pushed once as tour.stop-reached")
            }
        }
    }

    @Test("a tour the traveller does not own, an unknown tour, bad fields: clear errors; the guide may navigate their own tour")
    func ownership() async throws {
        try await NavigationApp.with { client, _, feeds in
            let traveller = UUID(), guide = UUID(), stranger = UUID(), tour = UUID()
            let stops = [Self.stop("A", 48.4093, 15.6033), Self.stop("B", 48.4102, 15.6185)]
            try await Self.publish(tour, guide: guide, stops: stops, buyer: traveller, on: feeds.tours)
            let body = #"{"tourId": "\#(tour)", "from": {"lat": 48.4000, "lng": 15.6200}}"#
            _ = try await waitForStart(client, body: body, token: try await TokenForge.token(traveller))
            let foreign = try await client.sendJSON(.post, "/v1/navigation/tour-sessions", json: body, token: try await TokenForge.token(stranger))
            #expect(foreign.status == 403)
            #expect(foreign.json["code"] as? String == "tour-not-owned")
            let unknown = try await client.sendJSON(.post, "/v1/navigation/tour-sessions", json: #"{"tourId": "\#(UUID())", "from": {"lat": 48.4, "lng": 15.62}}"#,
                                                    token: try await TokenForge.token(traveller))
            #expect(unknown.status == 403)
            let own = try await client.sendJSON(.post, "/v1/navigation/tour-sessions", json: body, token: try await TokenForge.token(guide))
            #expect(own.status == 201, "the guide navigates their own tour")
            // The route card to a stop of the tour: for its owner, not for a stranger.
            let card = try await client.sendJSON(.get, "/v1/routes/card?from=48.4000,15.6200&tour=\(tour)&stop=\(stops[1].stopId)",
                                                 token: try await TokenForge.token(traveller))
            #expect(card.status == 200, "\(card.json)")
            #expect((card.json["destination"] as? [String: Any])?["kind"] as? String == "tour-stop")
            #expect((card.json["destination"] as? [String: Any])?["name"] as? String == "B")
            let strangerCard = try await client.sendJSON(.get, "/v1/routes/card?from=48.4000,15.6200&tour=\(tour)&stop=\(stops[1].stopId)",
                                                         token: try await TokenForge.token(stranger))
            #expect(strangerCard.status == 403)
            let noStop = try await client.sendJSON(.get, "/v1/routes/card?from=48.4000,15.6200&tour=\(tour)&stop=\(UUID())",
                                                   token: try await TokenForge.token(traveller))
            #expect(noStop.status == 404)
            let bad = try await client.sendJSON(.post, "/v1/navigation/tour-sessions", json: #"{"from": {"lat": 91, "lng": 0}, "lang": "xx"}"#,
                                                token: try await TokenForge.token(traveller))
            #expect(Set(NavigationApp.fields(bad.json)) == ["tourId", "from.lat", "lang"])
        }
    }

    /// Starts the tour session once the consumer has the tour (it trails the feed).
    func waitForStart(_ client: any TestClientProtocol, body: String, token: String) async throws -> [String: Any] {
        var last: JSONReply = (0, [:], [:])
        let started = try await eventually(timeout: .seconds(20)) {
            last = try await client.sendJSON(.post, "/v1/navigation/tour-sessions", json: body, token: token)
            return last.status == 201
        }
        #expect(started, "\(last.json)")
        return last.json
    }
}
