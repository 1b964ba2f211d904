import Contracts
import EventSourcing
import Foundation
import Geo
import Hummingbird
import HummingbirdTesting
@testable import Navigation
import ServiceKit
import ServiceTesting
import Testing

/// Places through the router, on every enabled backend: favourites, recents, bad input, another traveller's places,
/// erasure through auth's feed, and the read model's rebuild.
@Suite("navigation: places routes")
struct PlacesRoutesTests {
    static func favourite(_ name: String, lat: Double = 48.41, lng: Double = 15.60, destinationId: Int? = nil) -> String {
        let destination = destinationId.map { #","destinationId":\#($0)"# } ?? ""
        return #"{"name":"\#(name)","coordinate":{"lat":\#(lat),"lng":\#(lng)}\#(destination)}"#
    }

    static func names(_ json: [String: Any], _ key: String = "favourites") -> [String?] {
        (json[key] as? [[String: Any]] ?? []).map { $0["name"] as? String }
    }

    @Test("favourites: add (201, Location, trimmed name), list by name then id, show, rename, remove (204, then 404)",
          arguments: TestBackend.enabled)
    func favourites(backend: TestBackend) async throws {
        try await NavigationApp.with(backend) { client, _, _ in
            let token = try await TokenForge.token(UUID())
            let home = try await client.sendJSON(.post, "/v1/places/favourites", json: Self.favourite("  Home  ", destinationId: 7), token: token)
            #expect(home.status == 201, "\(home.json)")
            let id = try #require(home.json["id"] as? String)
            #expect(home.headers[.location] == "/v1/places/favourites/\(id)")
            #expect(home.json["name"] as? String == "Home" && home.json["destinationId"] as? Int == 7)
            #expect((home.json["coordinate"] as? [String: Double]) == ["lat": 48.41, "lng": 15.60])
            #expect((home.json["addedAt"] as? String)?.hasSuffix("Z") == true)
            for name in ["work", "Zoo", "Arena", "work"] {
                #expect(try await client.sendJSON(.post, "/v1/places/favourites", json: Self.favourite(name), token: token).status == 201)
            }
            let list = try await client.sendJSON(.get, "/v1/places/favourites", token: token)
            #expect(list.status == 200)
            #expect(Self.names(list.json) == ["Arena", "Home", "work", "work", "Zoo"], "by name, case folded")
            let works = (list.json["favourites"] as? [[String: Any]] ?? []).filter { $0["name"] as? String == "work" }.compactMap { $0["id"] as? String }
            #expect(works == works.sorted(), "ties by id")

            let shown = try await client.sendJSON(.get, "/v1/places/favourites/\(id)", token: token)
            #expect(shown.status == 200 && shown.json["name"] as? String == "Home" && shown.json["destinationId"] as? Int == 7)
            let renamed = try await client.sendJSON(.patch, "/v1/places/favourites/\(id)", json: #"{"name":"Zuhause"}"#, token: token)
            #expect(renamed.status == 200 && renamed.json["name"] as? String == "Zuhause" && renamed.json["destinationId"] as? Int == 7)
            #expect(Self.names(try await client.sendJSON(.get, "/v1/places/favourites", token: token).json) == ["Arena", "work", "work", "Zoo", "Zuhause"])
            #expect(try await client.sendJSON(.delete, "/v1/places/favourites/\(id)", token: token).status == 204)
            let again = try await client.sendJSON(.delete, "/v1/places/favourites/\(id)", token: token)
            #expect(again.status == 404 && again.json["code"] as? String == "unknown-place")
            #expect(try await client.sendJSON(.get, "/v1/places/favourites/\(id)", token: token).status == 404)
            #expect(try await client.sendJSON(.get, "/v1/places/favourites/not-a-uuid", token: token).json["code"] as? String == "unknown-place")
            #expect(try await client.sendJSON(.get, "/v1/places/favourites").status == 401)
            #expect(try await client.sendJSON(.get, "/v1/places/recent").status == 401)
        }
    }

    @Test("another traveller's favourite is 404 unknown-place (show, rename, remove), and lists are each one's own",
          arguments: TestBackend.enabled)
    func othersFavourite(backend: TestBackend) async throws {
        try await NavigationApp.with(backend) { client, server, _ in
            let (alice, bob) = (UUID(), UUID())
            let (aliceToken, bobToken) = (try await TokenForge.token(alice), try await TokenForge.token(bob))
            let added = try await client.sendJSON(.post, "/v1/places/favourites", json: Self.favourite("Alice's home"), token: aliceToken)
            let id = try #require(added.json["id"] as? String)
            let attempts: [(HTTPRequest.Method, String?)] = [(.get, nil), (.patch, #"{"name":"mine now"}"#), (.delete, nil)]
            for (method, body) in attempts {
                let reply = try await client.sendJSON(method, "/v1/places/favourites/\(id)", json: body, token: bobToken)
                #expect(reply.status == 404 && reply.json["code"] as? String == "unknown-place", "\(method)")
            }
            // The lists are read models, caught up within moments (on PostgreSQL under the whole suite's load, seconds).
            #expect(try await eventually(timeout: .seconds(20)) {
                Self.names(try await client.sendJSON(.get, "/v1/places/favourites", token: aliceToken).json) == ["Alice's home"]
            })
            #expect(Self.names(try await client.sendJSON(.get, "/v1/places/favourites", token: bobToken).json).isEmpty)
            let uuid = try #require(UUID(uuidString: id))
            #expect(try await server.places.favourite(uuid, of: bob) == nil)
            #expect(try await server.places.favourite(uuid, of: alice)?.name == "Alice's home")
        }
    }

    @Test("bad input: every invalid field at once (422), malformed JSON (400), a too-large body (413), a bad limit (422)",
          arguments: TestBackend.enabled)
    func badInput(backend: TestBackend) async throws {
        try await NavigationApp.with(backend) { client, _, _ in
            let token = try await TokenForge.token(UUID())
            let empty = try await client.sendJSON(.post, "/v1/places/favourites", json: "{}", token: token)
            #expect(empty.status == 422 && empty.json["code"] as? String == "invalid-field")
            #expect(Set(NavigationApp.fields(empty.json)) == ["name", "coordinate"])
            let bad = try await client.sendJSON(.post, "/v1/places/favourites",
                                                json: #"{"name":"   ","coordinate":{"lat":91,"lng":-181},"destinationId":0}"#, token: token)
            #expect(bad.status == 422)
            #expect(Set(NavigationApp.fields(bad.json)) == ["name", "coordinate.lat", "coordinate.lng", "destinationId"])
            let long = try await client.sendJSON(.post, "/v1/places/favourites", json: Self.favourite(String(repeating: "x", count: 81)), token: token)
            #expect(long.status == 422 && NavigationApp.fields(long.json) == ["name"])
            #expect(try await client.sendJSON(.post, "/v1/places/favourites", json: Self.favourite(String(repeating: "é", count: 80)), token: token).status == 201)
            let halfCoordinate = try await client.sendJSON(.post, "/v1/places/recent", json: #"{"coordinate":{"lat":48},"kind":"walked","name":""}"#, token: token)
            #expect(halfCoordinate.status == 422 && Set(NavigationApp.fields(halfCoordinate.json)) == ["coordinate.lng", "kind", "name"])
            let future = try await client.sendJSON(.post, "/v1/places/recent", json: #"{"coordinate":{"lat":48,"lng":15},"at":"2999-01-01T00:00:00Z"}"#, token: token)
            #expect(future.status == 422 && NavigationApp.fields(future.json) == ["at"])
            let rename = try await client.sendJSON(.patch, "/v1/places/favourites/\(UUID())", json: "{}", token: token)
            #expect(rename.status == 422 && NavigationApp.fields(rename.json) == ["name"])
            let malformed = try await client.sendJSON(.post, "/v1/places/favourites", json: #"{"name":"x","coordinate":"#, token: token)
            #expect(malformed.status == 400 && malformed.json["code"] as? String == "malformed-json")
            let huge = Self.favourite(String(repeating: "x", count: 20_000))
            let tooLarge = try await client.sendJSON(.post, "/v1/places/favourites", json: huge, token: token)
            #expect(tooLarge.status == 413, "\(tooLarge.json)")
            for limit in ["0", "51", "x"] {
                let reply = try await client.sendJSON(.get, "/v1/places/recent?limit=\(limit)", token: token)
                #expect(reply.status == 422 && NavigationApp.fields(reply.json) == ["limit"], "limit=\(limit)")
            }
        }
    }

    @Test("at most 200 favourites: the 201st is 409 too-many-favourites", arguments: TestBackend.enabled)
    func favouriteLimit(backend: TestBackend) async throws {
        try await NavigationApp.with(backend) { client, server, _ in
            let user = UUID()
            let token = try await TokenForge.token(user)
            for index in 0..<PlacesAggregate.favouriteLimit {
                _ = try await server.places.addFavourite(name: "place \(index)", at: try Coordinate(latitude: 48, longitude: 15), for: user)
            }
            let reply = try await client.sendJSON(.post, "/v1/places/favourites", json: Self.favourite("one more"), token: token)
            #expect(reply.status == 409 && reply.json["code"] as? String == "too-many-favourites")
            #expect((try await client.sendJSON(.get, "/v1/places/favourites", token: token).json["favourites"] as? [Any])?.count == 200)
        }
    }

    @Test("recents: newest first, a repeat within 25 m moves to the top (200, same id), the last 50 only, limit, navigated through the Swift API, clear",
          arguments: TestBackend.enabled)
    func recents(backend: TestBackend) async throws {
        try await NavigationApp.with(backend) { client, server, _ in
            let user = UUID()
            let token = try await TokenForge.token(user)
            let first = try await client.sendJSON(.post, "/v1/places/recent", json: #"{"name":"Steiner Tor","coordinate":{"lat":48.4100,"lng":15.6000}}"#, token: token)
            #expect(first.status == 201 && first.json["kind"] as? String == "searched", "\(first.json)")
            let firstID = try #require(first.json["id"] as? String)
            let second = try await client.sendJSON(.post, "/v1/places/recent", json: #"{"coordinate":{"lat":48.4200,"lng":15.6000}}"#, token: token)
            #expect(second.status == 201 && second.json["name"] == nil)
            // 11 m from the first, unnamed: the same spot.
            let near = try await client.sendJSON(.post, "/v1/places/recent", json: #"{"coordinate":{"lat":48.4101,"lng":15.6000}}"#, token: token)
            #expect(near.status == 200 && near.json["id"] as? String == firstID && near.json["name"] as? String == "Steiner Tor")
            var list = try await client.sendJSON(.get, "/v1/places/recent", token: token)
            #expect((list.json["recents"] as? [[String: Any]])?.compactMap { $0["id"] as? String }.first == firstID)
            #expect((list.json["recents"] as? [Any])?.count == 2)

            // Navigating there through the service's Swift API: the same recent, now `navigated`.
            let at = Date()
            let navigated = try await server.places.remember(try Coordinate(latitude: 48.42005, longitude: 15.6), name: nil, kind: .navigated, for: user, at: at)
            #expect(navigated.id.uuidString.lowercased() == second.json["id"] as? String && navigated.kind == .navigated)
            list = try await client.sendJSON(.get, "/v1/places/recent?limit=1", token: token)
            let top = try #require((list.json["recents"] as? [[String: Any]])?.first)
            #expect((list.json["recents"] as? [Any])?.count == 1 && top["kind"] as? String == "navigated")

            // 60 more distinct places: only the newest 50 stay, the first two are gone.
            for index in 0..<60 {
                _ = try await server.places.remember(try Coordinate(latitude: 47 + Double(index) * 0.01, longitude: 16), name: "p\(index)",
                                                     kind: .searched, for: user, at: at.addingTimeInterval(Double(index + 1)))
            }
            list = try await client.sendJSON(.get, "/v1/places/recent", token: token)
            let names = Self.names(list.json, "recents")
            #expect(names.count == 50 && names.first == "p59" && names.last == "p10")
            let recents = try await server.places.recents(of: user)
            #expect(recents.count == 50 && zip(recents, recents.dropFirst()).allSatisfy { $0.at >= $1.at })
            #expect(try await server.storage.store.readStream(PlacesAggregate.streamID(user)).count == 64, "4 uses + 60: no event for the evictions")

            #expect(try await client.sendJSON(.delete, "/v1/places/recent", token: token).status == 204)
            #expect((try await client.sendJSON(.get, "/v1/places/recent", token: token).json["recents"] as? [Any])?.isEmpty == true)
            #expect(try await client.sendJSON(.delete, "/v1/places/recent", token: token).status == 204, "clearing an empty list")
        }
    }

    @Test("names and coordinates never rest in clear: not in the log, not in the read model", arguments: TestBackend.enabled)
    func sealed(backend: TestBackend) async throws {
        try await NavigationApp.with(backend) { client, server, _ in
            let user = UUID()
            let token = try await TokenForge.token(user)
            _ = try await client.sendJSON(.post, "/v1/places/favourites", json: Self.favourite("Secret Home", lat: 48.123456, lng: 15.654321), token: token)
            _ = try await client.sendJSON(.post, "/v1/places/recent", json: #"{"name":"Secret Search","coordinate":{"lat":48.234567,"lng":15.765432}}"#, token: token)
            let events = try await server.storage.store.readStream(PlacesAggregate.streamID(user))
            #expect(events.count == 2)
            for event in events {
                let text = String(decoding: event.payload, as: UTF8.self)
                for secret in ["Secret", "48.12", "15.65", "48.23", "15.76"] { #expect(!text.contains(secret), "\(event.eventType): \(text)") }
            }
            let rows = try await PlacesStores.open(server.storage).favourites(of: user)
            #expect(rows.count == 1 && !rows[0].name.sealed.contains("Secret"))
        }
    }

    @Test("UserErased on auth's feed: the key is destroyed, both lists are empty, the log's sealed values no longer open, nothing new is accepted; done once; rebuild = live",
          arguments: TestBackend.enabled)
    func erasure(backend: TestBackend) async throws {
        try await NavigationApp.with(backend) { client, server, feeds in
            let (erased, kept) = (UUID(), UUID())
            let (token, keptToken) = (try await TokenForge.token(erased), try await TokenForge.token(kept))
            for (who, name) in [(token, "Home"), (token, "Work"), (keptToken, "Other home")] {
                #expect(try await client.sendJSON(.post, "/v1/places/favourites", json: Self.favourite(name), token: who).status == 201)
            }
            #expect(try await client.sendJSON(.post, "/v1/places/recent", json: #"{"name":"Bahnhof","coordinate":{"lat":48.41,"lng":15.6}}"#, token: token).status == 201)
            #expect(try await client.sendJSON(.post, "/v1/places/recent", json: #"{"coordinate":{"lat":48.41,"lng":15.6}}"#, token: keptToken).status == 201)

            try await feeds.auth.erase(erased)
            try await waitUntil("the erasure is carried out", timeout: .seconds(30), interval: .milliseconds(50)) {
                if try await server.travellerErasure.applyPending() > 0 { return true }
                return try await server.storage.store.readStream(PlacesAggregate.streamID(erased)).last?.eventType == PlacesErased.eventType
            }
            try await server.places.readModel.catchUp()
            #expect(Self.names(try await client.sendJSON(.get, "/v1/places/favourites", token: token).json).isEmpty)
            #expect(Self.names(try await client.sendJSON(.get, "/v1/places/recent", token: token).json, "recents").isEmpty)
            #expect(try await PlacesStores.open(server.storage).favourites(of: erased).isEmpty, "the read model dropped the rows")
            #expect(try await PlacesStores.open(server.storage).recents(of: erased, limit: 50).isEmpty)
            #expect(Self.names(try await client.sendJSON(.get, "/v1/places/favourites", token: keptToken).json) == ["Other home"], "others keep theirs")

            let events = try await server.storage.store.readStream(PlacesAggregate.streamID(erased))
            #expect(events.last?.eventType == PlacesErased.eventType)
            let added = try events.filter { $0.eventType == FavouritePlaceAdded.eventType }.map { try $0.decode(FavouritePlaceAdded.self) }
            #expect(added.count == 2)
            for event in added {
                #expect(try await server.places.seal.open(SealedName.self, event.name) == nil, "the name no longer opens")
                #expect(try await server.places.seal.open(SealedPlace.self, event.place) == nil, "the coordinate no longer opens")
            }
            let refused = try await client.sendJSON(.post, "/v1/places/favourites", json: Self.favourite("again"), token: token)
            #expect(refused.status == 403 && refused.json["code"] as? String == "account-erased")
            #expect(try await client.sendJSON(.post, "/v1/places/recent", json: #"{"coordinate":{"lat":48.41,"lng":15.6}}"#, token: token).status == 403)
            #expect(try await server.travellerErasure.applyPending() == 0, "done once")
            try await server.places.erase(erased)
            #expect(try await server.storage.store.readStream(PlacesAggregate.streamID(erased)).count == events.count, "erasing again appends nothing")

            let stores = PlacesStores.open(server.storage)
            let live = (try await stores.favourites(of: kept), try await stores.recents(of: kept, limit: 50))
            try await server.places.readModel.rebuild()
            #expect(try await stores.favourites(of: kept) == live.0, "rebuild = live")
            #expect(try await stores.recents(of: kept, limit: 50) == live.1, "rebuild = live")
            #expect(try await stores.favourites(of: erased).isEmpty)
        }
    }

    @Test("the read model rebuilt from the log equals the live one (favourites renamed and removed, recents repeated, evicted and cleared)",
          arguments: TestBackend.enabled)
    func rebuild(backend: TestBackend) async throws {
        try await NavigationApp.with(backend) { _, server, _ in
            let places = server.places
            let users = [UUID(), UUID()]
            let t0 = Date()
            for (u, user) in users.enumerated() {
                var ids: [UUID] = []
                for index in 0..<6 {
                    ids.append(try await places.addFavourite(name: "fav \(u)-\(index)", at: try Coordinate(latitude: 48 + Double(index) * 0.1, longitude: 15),
                                                             destinationId: index % 2 == 0 ? Int64(index + 1) : nil, for: user).id)
                }
                _ = try await places.renameFavourite(ids[0], to: "renamed", of: user)
                try await places.removeFavourite(ids[1], of: user)
                for index in 0..<55 {
                    try await places.remember(try Coordinate(latitude: 47 + Double(index % 53) * 0.01, longitude: 16), name: index % 3 == 0 ? nil : "r\(index)",
                                              kind: index % 2 == 0 ? .searched : .navigated, for: user, at: t0.addingTimeInterval(Double(index)))
                }
            }
            try await places.clearRecents(of: users[1])
            try await places.remember(try Coordinate(latitude: 1, longitude: 1), name: "after clear", kind: .searched, for: users[1], at: t0)
            let stores = PlacesStores.open(server.storage)
            func snapshot() async throws -> [[String]] {
                var lines: [[String]] = []
                for user in users {
                    lines.append(try await stores.favourites(of: user).sorted { $0.placeId.uuidString < $1.placeId.uuidString }.map { "\($0)" })
                    lines.append(try await stores.recents(of: user, limit: 50).map { "\($0)" })
                    lines.append(try await places.favourites(of: user).map { "\($0)" } + (try await places.recents(of: user)).map { "\($0)" })
                }
                return lines
            }
            let live = try await snapshot()
            #expect(live[1].count == 50 && live[4].count == 1)
            try await server.places.readModel.rebuild()
            #expect(try await snapshot() == live, "rebuild = live")
        }
    }
}
