import Foundation
import Geo
import HummingbirdTesting
@testable import Navigation
import RoadNetwork
import ServiceKit
import ServiceTesting
import Testing

/// Points in Krems used across the route tests (on or next to bike-usable streets of the reference extract).
enum KremsPoints {
    /// By the station, in the west of the extract (its western edge is 15.583°).
    static let station = "48.4093,15.6033"
    /// 1.2 km east of it: three routes pass the alternatives' rules (`waypoint roads route --alternatives 2`).
    static let east = "48.4102,15.6185"
    /// 3.7 km south-east, across the main roads.
    static let south = "48.4000,15.6200"
    /// North of the centre.
    static let north = "48.4150,15.6100"
    /// 15 km outside the extract: no street within any snap radius.
    static let nowhere = "48.5500,15.4000"
}

@Suite("navigation: route search")
struct RouteSearchTests {
    @Test("a route between two points: OSRM's shape — code, routes, legs, steps from depart to arrive, maneuvers, waypoints")
    func osrmShape() async throws {
        try await NavigationApp.with { client, _, _ in
            let reply = try await client.sendJSON(.get, "/v1/routes?from=\(KremsPoints.station)&to=\(KremsPoints.south)&steps=true")
            #expect(reply.status == 200)
            #expect(reply.json["code"] as? String == "Ok")
            let routes = try #require(reply.json["routes"] as? [[String: Any]])
            #expect(routes.count == 1)
            let route = routes[0]
            let distance = try #require(route["distance"] as? Double)
            #expect((3_000...5_000).contains(distance), "station to the south point is about 3.7 km: \(distance)")
            #expect((route["duration"] as? Double ?? 0) > 0)
            let polyline = try #require(route["geometry"] as? String)
            let decoded = try Polyline(encoded: polyline, precision: .six)
            #expect(decoded.coordinates.count >= 2)
            #expect(abs(decoded.length - distance) < distance * 0.02, "the geometry is the route: \(decoded.length) vs \(distance)")
            let legs = try #require(route["legs"] as? [[String: Any]])
            #expect(legs.count == 1)
            let steps = try #require(legs[0]["steps"] as? [[String: Any]])
            #expect(steps.count >= 3)
            let types = steps.compactMap { ($0["maneuver"] as? [String: Any])?["type"] as? String }
            #expect(types.first == "depart" && types.last == "arrive")
            #expect(Set(types).isSubset(of: ["depart", "turn", "continue", "roundabout", "exit roundabout", "arrive"]))
            let stepSum = steps.compactMap { $0["distance"] as? Double }.reduce(0, +)
            #expect(abs(stepSum - distance) < 1, "steps add up to the leg: \(stepSum) vs \(distance)")
            for step in steps {
                let maneuver = try #require(step["maneuver"] as? [String: Any])
                #expect((maneuver["location"] as? [Double])?.count == 2)
                #expect((0...359).contains(maneuver["bearing_before"] as? Int ?? -1))
                #expect((0...359).contains(maneuver["bearing_after"] as? Int ?? -1))
                #expect(!(maneuver["instruction"] as? String ?? "").isEmpty)
                #expect(step["mode"] as? String == "cycling")
            }
            #expect((steps.last?["maneuver"] as? [String: Any])?["instruction"] as? String == "You have arrived at your destination")
            let waypoints = try #require(reply.json["waypoints"] as? [[String: Any]])
            #expect(waypoints.count == 2)
            #expect(waypoints.allSatisfy { ($0["distance"] as? Double ?? 999) < 200 })
        }
    }

    @Test("alternatives=2: up to three routes, ranked by score (weight + turn costs), each with its breakdown")
    func alternativesRanked() async throws {
        try await NavigationApp.with { client, _, _ in
            let reply = try await client.sendJSON(.get, "/v1/routes?from=\(KremsPoints.station)&to=\(KremsPoints.east)&alternatives=2&geometries=geojson")
            #expect(reply.status == 200, "\(reply.json)")
            let routes = try #require(reply.json["routes"] as? [[String: Any]])
            #expect((2...3).contains(routes.count), "a cross-town ride has alternatives: \(routes.count)")
            var previous = -Double.infinity
            for route in routes {
                let score = try #require(route["score"] as? [String: Any])
                let total = try #require(score["total"] as? Double)
                let weight = try #require(score["weight"] as? Double)
                let turnCost = try #require(score["turnCost"] as? Double)
                #expect(abs(total - (weight + turnCost)) < 0.2)
                #expect(abs(weight - (route["weight"] as? Double ?? 0)) < 0.2)
                #expect(total >= previous, "ranked by score")
                previous = total
                let byClass = try #require(score["metresByWayClass"] as? [String: Double])
                #expect(abs(byClass.values.reduce(0, +) - (route["distance"] as? Double ?? 0)) < 1)
                let byStatus = try #require(score["metresByPathStatus"] as? [String: Double])
                #expect(byStatus.keys.allSatisfy { $0 == "none" }, "no approved paths yet")
                let geometry = try #require(route["geometry"] as? [String: Any])
                #expect(geometry["type"] as? String == "LineString")
                #expect(((geometry["coordinates"] as? [[Double]])?.first?.count) == 2)
            }
        }
    }

    @Test("via points: one leg per pair, via arrivals read 'waypoint'; alternatives are refused with via points")
    func viaPoints() async throws {
        try await NavigationApp.with { client, _, _ in
            let reply = try await client.sendJSON(.get, "/v1/routes?from=\(KremsPoints.north)&via=\(KremsPoints.station)&to=\(KremsPoints.south)&steps=true&lang=de")
            #expect(reply.status == 200)
            let route = try #require((reply.json["routes"] as? [[String: Any]])?.first)
            let legs = try #require(route["legs"] as? [[String: Any]])
            #expect(legs.count == 2)
            let firstArrival = ((legs[0]["steps"] as? [[String: Any]])?.last?["maneuver"] as? [String: Any])?["instruction"] as? String
            #expect(firstArrival == "Sie haben Ihren Zwischenhalt erreicht")
            let legSum = legs.compactMap { $0["distance"] as? Double }.reduce(0, +)
            #expect(abs(legSum - (route["distance"] as? Double ?? 0)) < 1)
            #expect((reply.json["waypoints"] as? [[String: Any]])?.count == 3)
            let refused = try await client.sendJSON(.get, "/v1/routes?from=\(KremsPoints.north)&via=\(KremsPoints.station)&to=\(KremsPoints.south)&alternatives=1")
            #expect(refused.status == 422)
            #expect(NavigationApp.fields(refused.json) == ["alternatives"])
        }
    }

    @Test("bad input: every bad parameter listed at once; alternatives=7, lang=xx, geometries=kml, steps=maybe, points out of range or missing")
    func badInput() async throws {
        try await NavigationApp.with { client, _, _ in
            let reply = try await client.sendJSON(.get, "/v1/routes?from=91,15&alternatives=7&lang=xx&geometries=kml&steps=maybe")
            #expect(reply.status == 422)
            #expect(reply.json["code"] as? String == "invalid-field")
            #expect(Set(NavigationApp.fields(reply.json)) == ["from", "to", "alternatives", "lang", "geometries", "steps"])
            for query in ["from=nan,nan&to=48.4,15.6", "from=48.4&to=48.4,15.6", "from=48.4,15.6,1&to=48.4,15.6", "from=&to=", "from=inf,0&to=0,0"] {
                let bad = try await client.sendJSON(.get, "/v1/routes?\(query)")
                #expect(bad.status == 422, "\(query)")
            }
            let many = (0..<26).map { _ in KremsPoints.station }.joined(separator: ";")
            let tooMany = try await client.sendJSON(.get, "/v1/routes?from=\(KremsPoints.station)&to=\(KremsPoints.east)&via=\(many)")
            #expect(tooMany.status == 422)
            #expect(NavigationApp.fields(tooMany.json).contains("via"))
        }
    }

    @Test("NoSegment for a point far from any street; same-point for a leg that starts where it ends")
    func unroutable() async throws {
        try await NavigationApp.with { client, _, _ in
            let far = try await client.sendJSON(.get, "/v1/routes?from=\(KremsPoints.station)&to=\(KremsPoints.nowhere)")
            #expect(far.status == 422)
            #expect(far.json["code"] as? String == "NoSegment")
            #expect((far.json["detail"] as? String)?.contains("destination") == true)
            let same = try await client.sendJSON(.get, "/v1/routes?from=\(KremsPoints.station)&to=\(KremsPoints.station)")
            #expect(same.status == 422)
            #expect(same.json["code"] as? String == "same-point")
        }
    }
}
