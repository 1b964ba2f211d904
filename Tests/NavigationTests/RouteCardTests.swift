import Foundation
import Geo
import HummingbirdTesting
@testable import Navigation
import RoadNetwork
import ServiceKit
import ServiceTesting
import Testing

@Suite("navigation: route cards")
struct RouteCardTests {
    @Test("to a coordinate: bearing, straight line (Geo's great circle), walking estimated, cycling from the bike route, first instructions")
    func toCoordinate() async throws {
        try await NavigationApp.with { client, _, _ in
            let reply = try await client.sendJSON(.get, "/v1/routes/card?from=\(KremsPoints.station)&to=\(KremsPoints.east)&lang=de")
            #expect(reply.status == 200, "\(reply.json)")
            let straight = try #require(reply.json["straightLineM"] as? Double)
            let a = try Coordinate(latitude: 48.4093, longitude: 15.6033), b = try Coordinate(latitude: 48.4102, longitude: 15.6185)
            #expect(abs(straight - a.distance(to: b)) < 0.5)
            let bearing = try #require(reply.json["bearing"] as? Int)
            #expect((80...90).contains(bearing), "east, slightly north: \(bearing)")
            #expect(reply.json["compass"] as? String == "Osten")
            let walking = try #require(reply.json["walking"] as? [String: Any])
            #expect(walking["estimated"] as? Bool == true)
            #expect(abs((walking["durationS"] as? Double ?? 0) - (straight * 1.3 / 1.4).rounded()) <= 1)
            let cycling = try #require(reply.json["cycling"] as? [String: Any])
            #expect(cycling["estimated"] as? Bool == false)
            #expect(reply.json["routed"] as? Bool == true)
            let instructions = try #require(reply.json["instructions"] as? [String])
            #expect((1...3).contains(instructions.count))
            #expect(instructions.first?.hasPrefix("Fahren Sie Richtung") == true)
        }
    }

    @Test("far from any street the card still answers (bearing, distance, estimates, no instructions); a favourite needs its owner; bad input")
    func offNetworkAndFavourites() async throws {
        try await NavigationApp.with { client, server, _ in
            let far = try await client.sendJSON(.get, "/v1/routes/card?from=\(KremsPoints.nowhere)&to=\(KremsPoints.station)")
            #expect(far.status == 200)
            #expect(far.json["routed"] as? Bool == false)
            #expect((far.json["cycling"] as? [String: Any])?["estimated"] as? Bool == true)
            #expect((far.json["instructions"] as? [String])?.isEmpty == true)
            let user = UUID()
            let favourite = try await server.places.addFavourite(name: "Hotel", at: try Coordinate(latitude: 48.4102, longitude: 15.6185), for: user)
            let token = try await TokenForge.token(user)
            let mine = try await client.sendJSON(.get, "/v1/routes/card?from=\(KremsPoints.station)&favourite=\(favourite.id)", token: token)
            #expect(mine.status == 200, "\(mine.json)")
            #expect((mine.json["destination"] as? [String: Any])?["name"] as? String == "Hotel")
            #expect(try await client.sendJSON(.get, "/v1/routes/card?from=\(KremsPoints.station)&favourite=\(favourite.id)").status == 401)
            let other = try await client.sendJSON(.get, "/v1/routes/card?from=\(KremsPoints.station)&favourite=\(favourite.id)",
                                                  token: try await TokenForge.token(UUID()))
            #expect(other.status == 404)
            let bad = try await client.sendJSON(.get, "/v1/routes/card?from=91,0&to=\(KremsPoints.east)&favourite=x&lang=xx")
            #expect(bad.status == 422)
            #expect(Set(NavigationApp.fields(bad.json)).isSuperset(of: ["from", "to", "lang"]))
        }
    }
}
