import Foundation
import Geo
@testable import Navigation
import RoadNetwork
import ServiceTesting
import Testing

@Suite("navigation: matching a fix to the session's route")
struct SessionRouteMatchTests {
    /// The match as projecting onto every segment gives it (the rule before segments were passed over by a bound).
    static func everySegment(_ route: SessionRoute, _ point: RoadPoint, notBefore: Double) -> SessionRoute.Match? {
        guard route.points.count >= 2, let fix = point.coordinate else { return nil }
        var best: SessionRoute.Match?
        for index in 0..<(route.points.count - 1) where route.cumulative[index + 1] >= notBefore {
            let a = try! Coordinate(latitude: route.points[index][0], longitude: route.points[index][1])
            let b = try! Coordinate(latitude: route.points[index + 1][0], longitude: route.points[index + 1][1])
            let foot = Segment(from: a, to: b).projection(of: fix)
            guard best == nil || foot.distance < best!.distance else { continue }
            let along = route.cumulative[index] + foot.fraction * (route.cumulative[index + 1] - route.cumulative[index])
            best = SessionRoute.Match(along: max(along, notBefore), distance: foot.distance, bearing: a == b ? 0 : a.initialBearing(to: b),
                                      point: RoadPoint(latitude: foot.point.latitude, longitude: foot.point.longitude))
        }
        return best
    }

    /// A winding route of `count` points around `centre`: legs of 5–120 m in every direction, some doubling back.
    static func route(around centre: (Double, Double), count: Int, seed: UInt64) -> SessionRoute {
        var random = SeededGenerator(seed: seed)
        var points: [[Double]] = [[centre.0, centre.1]]
        var cumulative: [Double] = [0]
        var heading = 0.0
        for _ in 1..<count {
            heading += Double.random(in: -100...100, using: &random)
            let length = Double.random(in: 5...120, using: &random)
            let last = try! Coordinate(latitude: points.last![0], longitude: points.last![1])
            let next = last.destination(bearing: (heading.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360), distance: length)
            points.append([next.latitude, next.longitude])
            cumulative.append(cumulative.last! + last.distance(to: next) * 1.02)
        }
        return SessionRoute(points: points, cumulative: cumulative, distance: cumulative.last!, duration: cumulative.last! / 5, steps: [])
    }

    @Test("passing over segments by the bound gives exactly the match of every segment (Krems, Helsinki, near the equator)",
          arguments: [(48.41, 15.61), (60.17, 24.94), (0.5, 32.5), (-33.9, 18.4)])
    func sameAsEverySegment(_ centre: (Double, Double)) {
        var random = SeededGenerator(seed: 21)
        for seed in UInt64(1)...8 {
            let route = Self.route(around: centre, count: 400, seed: seed)
            let span = 0.02
            for _ in 0..<300 {
                // Near the route (a point of it moved a little) and anywhere in the box, some far outside it.
                let near = route.points[Int.random(in: 0..<route.points.count, using: &random)]
                let point = Bool.random(using: &random)
                    ? RoadPoint(latitude: near[0] + Double.random(in: -0.0005...0.0005, using: &random),
                                longitude: near[1] + Double.random(in: -0.0005...0.0005, using: &random))
                    : RoadPoint(latitude: centre.0 + Double.random(in: -span...span, using: &random) * 3,
                                longitude: centre.1 + Double.random(in: -span...span, using: &random) * 3)
                let notBefore = Bool.random(using: &random) ? 0 : Double.random(in: 0...route.distance, using: &random)
                #expect(route.match(point, notBefore: notBefore) == Self.everySegment(route, point, notBefore: notBefore))
            }
        }
    }

    @Test("the bound never exceeds a segment's true distance, and passes over most segments of a long route",
          arguments: [(48.41, 15.61), (60.17, 24.94), (0.5, 32.5), (-33.9, 18.4)])
    func boundHolds(_ centre: (Double, Double)) throws {
        var random = SeededGenerator(seed: 7)
        var passedOver = 0, total = 0
        for _ in 0..<20_000 {
            let a = [centre.0 + Double.random(in: -0.05...0.05, using: &random), centre.1 + Double.random(in: -0.05...0.05, using: &random)]
            let b = [a[0] + Double.random(in: -0.002...0.002, using: &random), a[1] + Double.random(in: -0.002...0.002, using: &random)]
            let fix = try Coordinate(latitude: centre.0 + Double.random(in: -0.05...0.05, using: &random),
                                     longitude: centre.1 + Double.random(in: -0.05...0.05, using: &random))
            let actual = Segment(from: try Coordinate(latitude: a[0], longitude: a[1]), to: try Coordinate(latitude: b[0], longitude: b[1])).projection(of: fix).distance
            let bound = MatchBound(fix)
            #expect(!bound.cannotBeat(actual, from: a, to: b), "fix \(fix), segment \(a)–\(b): \(actual) m")
            total += 1
            if bound.cannotBeat(50, from: a, to: b) { passedOver += 1 }
        }
        // Segments within a 11 km box of a fix, a best match of 50 m: nearly all are passed over.
        #expect(Double(passedOver) / Double(total) > 0.9)
    }
}
