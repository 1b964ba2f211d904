import Contracts
import EventSourcing
import Foundation
import HTTPTypes
import HummingbirdTesting
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: tour progress, full content for owners, and detail views")
struct ProgressRoutesTests {
    typealias Authoring = TourAuthoringRoutesTests

    /// A published three-stop tour by `Authoring.guide`; returns its id and stop ids in order.
    static func publishedTour(_ client: any TestClientProtocol) async throws -> (id: String, stops: [String]) {
        let guide = try await TokenForge.token(Authoring.guide, role: .guide)
        let id = try #require(try await Authoring.send(client, .post, "/v1/tours", Authoring.draft, token: guide).json["id"] as? String)
        for stop in [#"{"name":"Steiner Tor","description":"The gate.","location":{"lat":48.4098,"lng":15.5976}}"#,
                     #"{"name":"Piaristenkirche","description":"The church.","location":{"lat":48.4112,"lng":15.6010}}"#,
                     #"{"name":"Gozzoburg","description":"The palace.","location":{"lat":48.4105,"lng":15.6003}}"#] {
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/stops", stop, token: guide).status == 201)
        }
        let published = try await Authoring.send(client, .post, "/v1/tours/\(id)/publish", token: guide)
        let stops = (published.json["stops"] as? [[String: Any]] ?? []).compactMap { $0["stopId"] as? String }.map { $0.lowercased() }
        _ = try await client.waitForJSON("/v1/tours", listing: 1, under: "tours", timeout: .seconds(30))
        return (id, stops)
    }

    /// Grants `user` the tour as a free acquisition (the purchase routes make the same event).
    static func acquire(_ storage: ServiceStorage, tour: String, user: String) async throws {
        let event = TourAcquired(tourId: UUID(uuidString: tour)!, userId: UUID(uuidString: user)!, guideId: UUID(uuidString: Authoring.guide)!,
                                 revision: 1, acquiredAt: Date())
        _ = try await storage.store.append([try event.newEvent()], to: "access-\(tour)-\(user)", expectedVersion: .any)
    }

    static func entitled(_ client: any TestClientProtocol, _ id: String, token: String) async throws -> [String: Any] {
        try await client.waitForJSON("/v1/tours/\(id)", token: token, timeout: .seconds(30), "the detail says entitled") {
            $0["entitled"] as? Bool == true
        }
    }

    @Test("owners get full stops; start, live and offline completions (last write wins, idempotent) complete the tour once")
    func progress() async throws {
        try await Authoring.withServiceAndStorage { client, storage in
            let (id, stops) = try await Self.publishedTour(client)
            let travellerId = UUID.v4().uuidString.lowercased()
            let traveller = try await TokenForge.token(travellerId, role: .traveller)

            // Not owned yet: names and places only, no progress.
            let preview = try await Authoring.send(client, .get, "/v1/tours/\(id)", token: traveller)
            #expect(preview.json["entitled"] as? Bool == false)
            #expect((preview.json["stops"] as? [[String: Any]])?.allSatisfy { $0["description"] == nil } == true)
            let refused = try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/start", token: traveller)
            #expect(refused.status == 403 && refused.json["code"] as? String == "not-entitled")

            try await Self.acquire(storage, tour: id, user: travellerId)
            let full = try await Self.entitled(client, id, token: traveller)
            #expect((full["stops"] as? [[String: Any]])?.compactMap { $0["description"] as? String } == ["The gate.", "The church.", "The palace."])
            let guideView = try await Authoring.send(client, .get, "/v1/tours/\(id)", token: try await TokenForge.token(Authoring.guide, role: .guide))
            #expect(guideView.json["entitled"] as? Bool == true, "the guide sees their own tour in full")

            #expect(try await Authoring.send(client, .get, "/v1/tours/\(id)/progress", token: traveller).status == 404)
            let started = try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/start", token: traveller)
            #expect(started.status == 201 && started.json["nextStopId"] as? String == stops[0])
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/start", token: traveller).status == 200, "resume")

            let first = try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/stops/\(stops[0])", token: traveller)
            #expect(first.status == 200 && first.json["completedStops"] as? Int == 1 && first.json["nextStopId"] as? String == stops[1])

            // Offline: stop 2 twice (the later time wins), stop 3; sent twice — the second batch appends nothing.
            let batch = """
                {"completions":[{"stopId":"\(stops[1])","completedAt":"2026-11-20T10:00:00Z"},
                {"stopId":"\(stops[1])","completedAt":"2026-11-20T10:05:00Z"},
                {"stopId":"\(stops[2])","completedAt":"2026-11-20T10:20:00Z"}]}
                """
            let done = try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/batch", batch, token: traveller)
            #expect(done.status == 200 && done.json["completed"] as? Bool == true && done.json["nextStopId"] == nil)
            let version = try await storage.store.readStream("progress-\(id)-\(travellerId)").count
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/batch", batch, token: traveller).status == 200)
            let events = try await storage.store.readStream("progress-\(id)-\(travellerId)")
            #expect(events.count == version, "a batch sent twice appends nothing")
            #expect(events.map(\.eventType) == ["TourStarted", "StopCompleted", "StopCompleted", "StopCompleted", "TourCompleted"])
            let stop2 = try #require(events.first { $0.eventType == "StopCompleted" && $0.streamVersion == 3 })
            #expect(try stop2.decode(StopCompleted.self).completedAt == ISO8601DateFormatter().date(from: "2026-11-20T10:05:00Z"))
            // An older offline time for a completed stop changes nothing.
            let older = #"{"completions":[{"stopId":"\#(stops[1])","completedAt":"2026-11-19T08:00:00Z"}]}"#
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/batch", older, token: traveller).status == 200)
            #expect(try await storage.store.readStream("progress-\(id)-\(travellerId)").count == events.count)
            let resumed = try await Authoring.send(client, .get, "/v1/tours/\(id)/progress", token: traveller)
            #expect(resumed.json["completedStops"] as? Int == 3 && resumed.json["totalStops"] as? Int == 3)

            // Bad input.
            let unknown = try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/stops/\(UUID().uuidString)", token: traveller)
            #expect(unknown.status == 422)
            let future = #"{"completions":[{"stopId":"\#(stops[0])","completedAt":"2099-01-01T00:00:00Z"}]}"#
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/batch", future, token: traveller).status == 422)
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/batch", #"{"completions":[]}"#, token: traveller).status == 422)
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/progress/batch", #"{"completions":[{}]}"#, token: traveller).status == 422)

            // The guide unpublishes: the owner keeps the tour, everyone else no longer finds it.
            let guide = try await TokenForge.token(Authoring.guide, role: .guide)
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/unpublish", token: guide).status == 200)
            _ = try await client.waitForJSON("/v1/tours", listing: 0, under: "tours", timeout: .seconds(30))
            let stranger = try await TokenForge.token(UUID.v4().uuidString.lowercased(), role: .traveller)
            #expect(try await Authoring.send(client, .get, "/v1/tours/\(id)", token: stranger).status == 404)
            let kept = try await Authoring.send(client, .get, "/v1/tours/\(id)", token: traveller)
            #expect(kept.status == 200 && kept.json["entitled"] as? Bool == true)
            #expect(try await Authoring.send(client, .get, "/v1/tours/\(id)/progress", token: traveller).status == 200)
        }
    }

    @Test("?currency= adds an approximate converted price with the rates' update time, in lists and details")
    func convertedPrices() async throws {
        try await Authoring.withServiceAndStorage { client, _ in
            let guide = try await TokenForge.token(Authoring.guide, role: .guide)
            let paid = Authoring.draft.replacingOccurrences(of: #""amountMinor":0"#, with: #""amountMinor":1500"#)
            let id = try #require(try await Authoring.send(client, .post, "/v1/tours", paid, token: guide).json["id"] as? String)
            for stop in [#"{"name":"A","description":"a","location":{"lat":48.41,"lng":15.60}}"#,
                         #"{"name":"B","description":"b","location":{"lat":48.42,"lng":15.61}}"#] {
                #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/stops", stop, token: guide).status == 201)
            }
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/publish", token: guide).status == 200)
            _ = try await client.waitForJSON("/v1/tours", listing: 1, under: "tours", timeout: .seconds(30))
            let admin = try await TokenForge.token(UUID.v4().uuidString.lowercased(), role: .admin)
            #expect(try await Authoring.send(client, .put, "/v1/admin/exchange-rates", #"{"rates":{"USD":"1.1","JPY":"160"}}"#, token: admin).status == 200)
            let list = try await DiscoveryRoutesTests.get(client, "/v1/tours?currency=JPY")
            let converted = try #require((list.json["tours"] as? [[String: Any]])?.first?["convertedPrice"] as? [String: Any])
            #expect(converted["amountMinor"] as? Int == 2_400 && converted["currency"] as? String == "JPY")
            #expect(converted["ratesUpdatedAt"] as? String != nil)
            let detail = try await DiscoveryRoutesTests.get(client, "/v1/tours/\(id)?currency=USD")
            #expect(((detail.json["tour"] as? [String: Any])?["convertedPrice"] as? [String: Any])?["amountMinor"] as? Int == 1_650)
            #expect((try await DiscoveryRoutesTests.get(client, "/v1/tours")).json["tours"].map { ($0 as? [[String: Any]])?.first?["convertedPrice"] == nil } == true)
        }
    }

    @Test("a detail view is recorded once per viewer per tour per hour")
    func views() async throws {
        try await Authoring.withServiceAndStorage { client, storage in
            let (id, _) = try await Self.publishedTour(client)
            let traveller = try await TokenForge.token(UUID.v4().uuidString.lowercased(), role: .traveller)
            for _ in 0..<3 { _ = try await Authoring.send(client, .get, "/v1/tours/\(id)", token: traveller) }
            for agent in ["app/1", "app/1", "app/2"] {
                var headers = HTTPFields()
                headers[.userAgent] = agent
                headers[HTTPField.Name("X-Forwarded-For")!] = "203.0.113.7"
                _ = try await client.executeRequest(uri: "/v1/tours/\(id)", method: .get, headers: headers, body: nil)
            }
            // Views are written by the recorder's background writer, after the pages were served.
            try await eventually(interval: .milliseconds(10)) { try await storage.store.readStream("views-\(id)").count >= 3 }
            // A deliberate observation window: no fourth view arrives late.
            try await Task.sleep(for: .milliseconds(100))
            let viewed = try await storage.store.readStream("views-\(id)")
            #expect(viewed.count == 3, "one signed-in viewer and two anonymous clients")
            let payloads = try viewed.map { try $0.decode(TourViewed.self) }
            #expect(payloads.filter { $0.userId != nil }.count == 1)
            #expect(Set(payloads.map(\.viewer)).count == 3)
            #expect(payloads.allSatisfy { !$0.viewer.contains("203.0.113.7") && !$0.viewer.contains("app/") })
        }
    }
}
