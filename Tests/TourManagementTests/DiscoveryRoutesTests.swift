import Contracts
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: discovery over HTTP (search, detail, map, route, bad input)")
struct DiscoveryRoutesTests {
    typealias Authoring = TourAuthoringRoutesTests

    static func get(_ client: any TestClientProtocol, _ uri: String) async throws -> JSONReply {
        try await client.sendJSON(.get, uri)
    }

    static func fields(_ json: [String: Any]) -> Set<String> {
        Set((json["fieldErrors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String })
    }

    @Test("a published tour is found by destination, theme, text and place; detail, route and map describe it; drafts stay hidden")
    func publishedTourIsDiscoverable() async throws {
        try await Authoring.withService { client in
            let guide = try await TokenForge.token(Authoring.guide, role: .guide)
            let created = try await Authoring.send(client, .post, "/v1/tours", Authoring.draft, token: guide)
            let id = try #require(created.json["id"] as? String)
            let draftOnly = try #require(try await Authoring.send(client, .post, "/v1/tours", Authoring.draft, token: guide).json["id"] as? String)
            for stop in [#"{"name":"Steiner Tor","description":"The gate.","location":{"lat":48.4098,"lng":15.5976}}"#,
                         #"{"name":"Piaristenkirche","description":"The church.","location":{"lat":48.4112,"lng":15.6010}}"#,
                         #"{"name":"Gozzoburg","description":"The palace.","location":{"lat":48.4105,"lng":15.6003}}"#] {
                #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/stops", stop, token: guide).status == 201)
            }
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/publish", token: guide).status == 200)

            let listed = try await client.waitForJSON("/v1/tours?destinationId=2773300", listing: 1, under: "tours", timeout: .seconds(30))
            let summary = try #require((listed["tours"] as? [[String: Any]])?.first)
            #expect(summary["id"] as? String == id)
            #expect((summary["destination"] as? [String: Any])?["name"] as? String == "Krems an der Donau")
            #expect((summary["price"] as? [String: Any])?["free"] as? Bool == true)
            #expect(summary["stopCount"] as? Int == 3)
            #expect(listed["nextCursor"] == nil)
            for uri in ["/v1/tours?themes=history", "/v1/tours?q=piaristen", "/v1/tours?q=Gates", "/v1/tours?near=48.41,15.60&radiusKm=2",
                        "/v1/tours?free=true&mode=walk&language=de-AT&minDuration=30&maxDuration=90"] {
                #expect(((try await Self.get(client, uri)).json["tours"] as? [Any])?.count == 1, "\(uri)")
            }
            for uri in ["/v1/tours?themes=food", "/v1/tours?q=casino", "/v1/tours?near=43.73,7.42", "/v1/tours?mode=bike",
                        "/v1/tours?minRating=3"] {
                #expect(((try await Self.get(client, uri)).json["tours"] as? [Any])?.count == 0, "\(uri)")
            }
            let near = try await Self.get(client, "/v1/tours?near=48.4098,15.5976&radiusKm=1")
            #expect(((near.json["tours"] as? [[String: Any]])?.first?["distanceMetres"] as? Int) == 0)

            let detail = try await Self.get(client, "/v1/tours/\(id)")
            #expect(detail.status == 200)
            #expect((detail.json["stops"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Steiner Tor", "Piaristenkirche", "Gozzoburg"])
            #expect((detail.json["firstStop"] as? [String: Any])?["description"] as? String == "The gate.")
            #expect((detail.json["tour"] as? [String: Any])?["description"] as? String == "Gates, churches and wine.")

            let route = try await Self.get(client, "/v1/tours/\(id)/route")
            #expect(route.status == 200)
            let geometry = try #require(route.json["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "LineString")
            #expect((geometry["coordinates"] as? [[Double]])?.first == [15.5976, 48.4098], "GeoJSON is [lng, lat]")
            let legs = try #require(route.json["legs"] as? [[String: Any]])
            #expect(legs.count == 2)
            let legTotal = legs.compactMap { $0["distanceMetres"] as? Int }.reduce(0, +)
            #expect(abs(legTotal - (route.json["lengthMetres"] as? Int ?? 0)) <= 1)
            #expect((route.json["polyline"] as? String)?.isEmpty == false)

            let map = try await client.executeRequest(uri: "/v1/tours/map?bbox=15.5,48.3,15.7,48.5&zoom=14", method: .get, headers: [:], body: nil)
            #expect(map.status == .ok && map.headers[.contentType] == "application/geo+json")
            let collection = try #require(try JSONSerialization.jsonObject(with: Data(buffer: map.body)) as? [String: Any])
            #expect(collection["type"] as? String == "FeatureCollection")
            #expect((collection["features"] as? [[String: Any]])?.count == 1)
            let elsewhere = try await Self.get(client, "/v1/tours/map?bbox=7.3,43.6,7.5,43.8&zoom=14")
            #expect((elsewhere.json["features"] as? [Any])?.count == 0)

            for uri in ["/v1/tours/\(draftOnly)", "/v1/tours/\(UUID().uuidString)", "/v1/tours/not-a-uuid", "/v1/tours/\(draftOnly)/route"] {
                let answer = try await Self.get(client, uri)
                #expect(answer.status == 404 && answer.json["code"] as? String == "unknown-tour", "\(uri)")
            }

            // Unpublishing removes it from discovery.
            #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/unpublish", token: guide).status == 200)
            _ = try await client.waitForJSON("/v1/tours?destinationId=2773300", listing: 0, under: "tours", timeout: .seconds(30))
            #expect(try await Self.get(client, "/v1/tours/\(id)").status == 404)
        }
    }

    @Test("lists and detail name the guide with auth's public name, from the waypoint.auth consumer and the profile endpoint")
    func guideNames() async throws {
        try await GuideProfilesTests.withAuthStub { auth in
            let guideId = UUID(uuidString: Authoring.guide)!
            auth.board.set(guideId, username: "anna.guide", displayName: "Anna Gruber")
            try await auth.append(UserRegistered(userId: guideId, username: GuideProfilesTests.sealed(guideId),
                                                 email: GuideProfilesTests.sealed(guideId), role: .guide, licenceNumber: nil,
                                                 method: .password, registeredAt: GuideProfilesTests.t0))
            try await Authoring.withService(authURL: auth.url) { client in
                let guide = try await TokenForge.token(Authoring.guide, role: .guide)
                let id = try #require(try await Authoring.send(client, .post, "/v1/tours", Authoring.draft, token: guide).json["id"] as? String)
                for stop in [#"{"name":"Steiner Tor","description":"The gate.","location":{"lat":48.4098,"lng":15.5976}}"#,
                             #"{"name":"Gozzoburg","description":"The palace.","location":{"lat":48.4105,"lng":15.6003}}"#] {
                    #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/stops", stop, token: guide).status == 201)
                }
                #expect(try await Authoring.send(client, .post, "/v1/tours/\(id)/publish", token: guide).status == 200)
                let listed = try await client.waitForJSON("/v1/tours", listing: 1, under: "tours", timeout: .seconds(30))
                // The consumer may still be catching up with auth's feed: wait for the name.
                func name(_ detail: [String: Any]) -> String? {
                    ((detail["tour"] as? [String: Any])?["guide"] as? [String: Any])?["name"] as? String
                }
                let detail = try await client.waitForJSON("/v1/tours/\(id)", timeout: .seconds(30), "the tour names its guide") { name($0) != nil }
                #expect(name(detail) == "Anna Gruber")
                #expect((((listed["tours"] as? [[String: Any]])?.first?["guide"]) as? [String: Any])?["id"] as? String == Authoring.guide)
                let list = try await Self.get(client, "/v1/tours")
                #expect((((list.json["tours"] as? [[String: Any]])?.first?["guide"]) as? [String: Any])?["name"] as? String == "Anna Gruber")
            }
        }
    }

    @Test("bad search input is a 422 naming every field")
    func badInput() async throws {
        try await Authoring.withService { client in
            let cases: [(String, Set<String>)] = [
                ("/v1/tours?near=91,10", ["near"]),
                ("/v1/tours?near=abc", ["near"]),
                ("/v1/tours?near=48,15&radiusKm=500", ["radiusKm"]),
                ("/v1/tours?radiusKm=5", ["radiusKm"]),
                ("/v1/tours?themes=history,karaoke", ["themes"]),
                ("/v1/tours?destinationId=1", ["destinationId"]),
                ("/v1/tours?minPrice=-1&priceCurrency=EUR", ["minPrice"]),
                ("/v1/tours?maxPrice=100", ["priceCurrency"]),
                ("/v1/tours?priceCurrency=XYZ", ["priceCurrency"]),
                ("/v1/tours?currency=XYZ", ["currency"]),
                ("/v1/tours?minPrice=500&maxPrice=100&priceCurrency=EUR", ["maxPrice"]),
                ("/v1/tours?minDuration=90&maxDuration=30", ["maxDuration"]),
                ("/v1/tours?minRating=6", ["minRating"]),
                ("/v1/tours?language=english!", ["language"]),
                ("/v1/tours?mode=car", ["mode"]),
                ("/v1/tours?free=yes", ["free"]),
                ("/v1/tours?q=%20%20", ["q"]),
                ("/v1/tours?q=!!!", ["q"]),
                ("/v1/tours?sort=relevance", ["sort"]),
                ("/v1/tours?sort=distance", ["sort"]),
                ("/v1/tours?sort=cheapest", ["sort"]),
                ("/v1/tours?limit=51", ["limit"]),
                ("/v1/tours?limit=0", ["limit"]),
                ("/v1/tours?cursor=garbage", ["cursor"]),
                ("/v1/tours?near=200,10&themes=x&limit=99", ["near", "themes", "limit"]),
                ("/v1/tours/map?zoom=3", ["bbox"]),
                ("/v1/tours/map?bbox=1,2,3&zoom=3", ["bbox"]),
                ("/v1/tours/map?bbox=15,48,16,49&zoom=23", ["zoom"]),
                ("/v1/tours/map?bbox=15,48,16,49&zoom=3&mode=car", ["mode"]),
            ]
            for (uri, expected) in cases {
                let answer = try await Self.get(client, uri)
                #expect(answer.status == 422, "\(uri)")
                #expect(answer.headers[.contentType] == "application/problem+json", "\(uri)")
                #expect(Self.fields(answer.json) == expected, "\(uri): \(Self.fields(answer.json))")
            }
            // A cursor of one sort is not accepted for another.
            let first = try await Self.get(client, "/v1/tours?sort=newest&limit=1")
            #expect(first.status == 200)
            let cursor = DiscoveryCursor(sort: .newest, key: 1, tourId: UUID()).encoded
            #expect(try await Self.get(client, "/v1/tours?sort=price&cursor=\(cursor)").status == 422)
            #expect(try await Self.get(client, "/v1/tours?sort=newest&cursor=\(cursor)").status == 200)
        }
    }
}
