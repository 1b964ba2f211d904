import Foundation
import RoadNetwork
import Testing
@testable import WaypointBench

/// The pure helpers of `waypoint-bench navigation`: the simulated ride along a route and the city pairs.
@Suite("The navigation benchmark's helpers")
struct NavigationBenchTests {
    /// About 1 km due east along the equator, then 500 m due north.
    static let route: [[Double]] = [[0, 0], [0, 0.009], [0.0045, 0.009]]

    @Test("a ride puts a fix every spacing metres along the line, with its course and its distance along")
    func rideAlong() {
        let ride = RideAlong(points: Self.route)
        #expect(abs(ride.length - 1_501) < 5)
        let fixes = ride.fixes(spacing: 100)
        #expect(fixes.count == 16)
        #expect(fixes.map(\.along) == (0..<16).map { Double($0) * 100 })
        #expect(abs(fixes[3].course - 90) < 0.01, "east on the first leg")
        #expect(abs(fixes[12].course - 0) < 0.01 || abs(fixes[12].course - 360) < 0.01, "north on the second")
        let at300 = RoadPoint(latitude: fixes[3].latitude, longitude: fixes[3].longitude)
        #expect(abs(at300.metres(to: RoadPoint(latitude: 0, longitude: 0)) - 300) < 2)
        let window = ride.fixes(spacing: 10, from: 270, to: 290)
        #expect(window.map(\.along) == [270, 280, 290])
    }

    @Test("sideways fixes lie that far to the right of the direction of travel")
    func sideways() {
        let ride = RideAlong(points: Self.route)
        let beside = ride.fixes(spacing: 10, from: 270, to: 290, sideways: 60)
        #expect(beside.count == 3)
        for fix in beside {
            // Travelling east, right is south.
            #expect(fix.latitude < 0)
            #expect(abs(RoadPoint(latitude: fix.latitude, longitude: fix.longitude).metres(to: RoadPoint(latitude: 0, longitude: fix.longitude)) - 60) < 0.5)
        }
    }

    @Test("a positions body is the service's JSON with one fix")
    func body() throws {
        let fix = RideAlong.Fix(latitude: 48.41, longitude: 15.6, course: 359.97, along: 0)
        let text = RideAlong.body(fix, speed: 5, time: Date(timeIntervalSince1970: 1_800_000_000))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let fixes = try #require(object["fixes"] as? [[String: Any]])
        #expect(fixes.count == 1)
        #expect(fixes[0]["lat"] as? Double == 48.41 && fixes[0]["speed"] as? Double == 5)
        #expect(fixes[0]["course"] as? Double == 0, "course rounded to a tenth and kept below 360")
        #expect(fixes[0]["time"] as? String == "2027-01-15T08:00:00.000Z")
    }

    @Test("pairs: both ends on main-component vertices of one city, inside the distance bounds, the same for the same seed")
    func pairs() {
        // Two cities of a 10 × 10 grid of vertices ~111 m apart, far from each other.
        func grid(_ name: String, _ latitude: Double, _ longitude: Double) -> CityPairs.City {
            var latitudes: [Double] = [], longitudes: [Double] = []
            for row in 0..<10 {
                for column in 0..<10 {
                    latitudes.append(latitude + Double(row) * 0.001)
                    longitudes.append(longitude + Double(column) * 0.001)
                }
            }
            return CityPairs.City(name: name, latitudes: latitudes, longitudes: longitudes, south: latitude, north: latitude + 0.009, west: longitude,
                                  east: longitude + 0.009, vertices: 100)
        }
        let cities = CityPairs(cities: [grid("a", 0, 0), grid("b", 10, 10)])
        let pairs = cities.pairs(count: 200, minimumMetres: 300, maximumMetres: 900, seed: 5)
        #expect(pairs.count == 200)
        #expect(Set(pairs.map(\.city)) == [0, 1])
        for pair in pairs {
            let city = cities.cities[pair.city]
            for point in [pair.from, pair.to] {
                #expect(zip(city.latitudes, city.longitudes).contains { $0 == point.latitude && $1 == point.longitude }, "a vertex of its city")
            }
            let metres = pair.from.metres(to: pair.to)
            #expect(metres >= 300 && metres <= 900)
        }
        let again = cities.pairs(count: 200, minimumMetres: 300, maximumMetres: 900, seed: 5)
        #expect(zip(pairs, again).allSatisfy { $0.from == $1.from && $0.to == $1.to })
        #expect(CityPairs.nearestIndex(latitude: 0.0041, longitude: 0.0069, latitudes: cities.cities[0].latitudes,
                                       longitudes: cities.cities[0].longitudes) == 47)
    }
}
