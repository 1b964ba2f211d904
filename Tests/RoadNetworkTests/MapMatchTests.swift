import Foundation
import Testing
@testable import RoadNetwork

@Suite("Map matching: behaviour and bad input")
struct MapMatchTests {
    static let matcher: MapMatcher? = RouteFixtures.kremsRouter.map { MapMatcher(router: $0) }
    static let simulator: RideSimulator? = RouteFixtures.kremsRouter.map { RideSimulator(router: $0) }

    static func ride(sigma: Double = 5, interval: ClosedRange<Double> = 1...1, seed: UInt64 = 7) throws -> RideSimulator.Ride {
        let simulator = try #require(simulator)
        let settings = RideSimulator.Settings(noiseSigma: sigma, interval: interval)
        return try #require(simulator.rides(count: 1, length: 1_000...2_000, settings: settings, seed: seed).first)
    }

    @Test("a ride at σ 5 m is one piece on the true route, every fix explained, confidence high")
    func cleanRide() throws {
        let matcher = try #require(Self.matcher)
        let ride = try Self.ride()
        let result = matcher.match(ride.observations)
        #expect(result.pieces.count == 1)
        #expect(result.fixes.count == ride.observations.count)
        #expect(result.fixes.allSatisfy { $0.state != .unmatched })
        #expect(result.fixes.contains { $0.state == .interpolated })
        let rmf = matcher.router.routeMismatch(truth: [ride.truth], matched: result.pieces.map(\.osmNodes))
        #expect(rmf < 0.1)
        #expect(result.confidence > 0.8)
        let piece = try #require(result.pieces.first)
        #expect(piece.geometry.first == result.fixes[0].position)
        #expect(piece.geometry.last == result.fixes.last?.position)
        #expect(abs(piece.length - Self.length(piece.geometry)) < 0.01 * piece.length + 1)
        for fix in result.fixes { #expect((fix.distance ?? .infinity) < 40) }
    }

    @Test("an empty ride: no pieces, confidence 0")
    func empty() throws {
        let result = try #require(Self.matcher).match([])
        #expect(result.pieces.isEmpty && result.fixes.isEmpty && result.confidence == 0)
    }

    @Test("one fix on a street: one piece of length 0 holding it")
    func oneFix() throws {
        let ride = try Self.ride()
        let result = try #require(Self.matcher).match([ride.observations[0]])
        #expect(result.pieces.count == 1)
        #expect(result.fixes.map(\.state) == [.matched])
        #expect(result.pieces.first?.length == 0)
    }

    @Test("NaN, infinite and off-the-globe fixes are unmatched; the others still make one piece")
    func invalidFixes() throws {
        var fixes = try Self.ride().observations
        fixes[10].latitude = .nan
        fixes[20].longitude = .infinity
        fixes[30].latitude = 123
        fixes[40].time = .nan
        fixes[50].accuracy = .nan
        let result = try #require(Self.matcher).match(fixes)
        for bad in [10, 20, 30, 40] { #expect(result.fixes[bad].state == .unmatched && result.fixes[bad].position == nil) }
        #expect(result.fixes[50].state != .unmatched)
        #expect(result.pieces.count == 1)
    }

    @Test("every fix off the network: all unmatched, no pieces, confidence 0")
    func offNetwork() throws {
        let fixes = (0..<50).map { MatchObservation(time: Double($0), latitude: 0.001 * Double($0), longitude: 0) }
        let result = try #require(Self.matcher).match(fixes)
        #expect(result.pieces.isEmpty && result.confidence == 0)
        #expect(result.fixes.allSatisfy { $0.state == .unmatched })
    }

    @Test("identical times, and times out of order, are matched without a crash")
    func identicalTimes() throws {
        var fixes = try Self.ride().observations
        for k in fixes.indices { fixes[k].time = 1_000 }
        let result = try #require(Self.matcher).match(fixes)
        #expect(result.pieces.count == 1)
        fixes.reverse()
        for k in fixes.indices { fixes[k].time = Double(k) }
        fixes.swapAt(3, 60)
        _ = try #require(Self.matcher).match(fixes)
    }

    @Test("a fix 5,000 km away is unmatched and the ride goes on in one piece")
    func hugeJump() throws {
        var fixes = try Self.ride().observations
        fixes[40].latitude -= 45
        let result = try #require(Self.matcher).match(fixes)
        #expect(result.fixes[40].state == .unmatched)
        #expect(result.pieces.count == 1)
    }

    @Test("a time gap splits the ride: two pieces, nothing invented across the gap")
    func timeGap() throws {
        let matcher = try #require(Self.matcher)
        var fixes = try Self.ride().observations
        let half = fixes.count / 2
        let dropped = half..<(half + 40)
        for k in fixes.indices where k >= half { fixes[k].time += 600 }
        fixes.removeSubrange(dropped)
        let result = matcher.match(fixes)
        #expect(result.pieces.count == 2)
        #expect(result.pieces.first?.lastObservation ?? .max < half)
        #expect(result.pieces.last?.firstObservation ?? -1 >= half)
    }

    @Test("a jump the network cannot explain within the breakage distance splits the ride")
    func breakage() throws {
        let matcher = try #require(Self.matcher)
        let first = try Self.ride(seed: 7), second = try Self.ride(seed: 99)
        let far = RoadGraphBuilder.distance((first.observations.last!.latitude, first.observations.last!.longitude),
                                            (second.observations[0].latitude, second.observations[0].longitude))
        try #require(far > 600)
        var rules = MapMatchRules()
        rules.breakageDistance = 500
        let strict = MapMatcher(router: matcher.router, rules: rules)
        let fixes = first.observations + second.observations.map { fix in
            var fix = fix
            fix.time = first.observations.last!.time + 1 + (fix.time - second.observations[0].time)
            return fix
        }
        let pieces = strict.match(fixes).pieces
        #expect(pieces.count >= 2)
        #expect(!pieces.contains { $0.firstObservation < first.observations.count && $0.lastObservation >= first.observations.count })
    }

    /// Metres along a polyline.
    static func length(_ points: [Coordinate2D]) -> Double {
        zip(points, points.dropFirst()).reduce(0) {
            $0 + RoadGraphBuilder.distance(($1.0.latitude, $1.0.longitude), ($1.1.latitude, $1.1.longitude))
        }
    }
}
