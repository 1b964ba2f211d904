import Foundation
import Testing
@testable import RoadNetwork

/// Issue 19's accuracy target on synthetic Krems rides (``RideSimulator``: a route from the router between random
/// vertices, 1.5–3 km, ridden at 4–7 m/s with a fix a second and Gaussian noise of σ per axis, accuracy reported = σ;
/// the truth is the route's own node sequence, so the ground truth is known exactly).
@Suite("Map matching: route mismatch on Krems rides")
struct MapMatchAccuracyTests {
    static let router = RouteFixtures.kremsRouter

    /// The mean route mismatch fraction of `count` rides at noise `sigma` drawn from `seed` (fixes with speed and
    /// course, 0.5 m/s of velocity noise, unless `velocityNoise` is `nil`).
    static func meanMismatch(sigma: Double, count: Int, seed: UInt64, velocityNoise: Double? = 0.5) throws -> (rmf: Double, rides: Int) {
        let router = try #require(router)
        let rides = RideSimulator(router: router).rides(count: count, length: 1_500...3_000,
                                                        settings: .init(noiseSigma: sigma, velocityNoise: velocityNoise), seed: seed)
        let matcher = MapMatcher(router: router)
        let rmfs = rides.map { router.routeMismatch(truth: [$0.truth], matched: matcher.match($0.observations).pieces.map(\.osmNodes)) }
        return (rmfs.reduce(0, +) / Double(max(rmfs.count, 1)), rmfs.count)
    }

    @Test("rides with almost no noise (σ 0.1 m) are matched onto their own route: RMF ≤ 0.03")
    func noiseFree() throws {
        // What is left is the ends: a ride starting on a junction may be given the neighbouring edge's first segment.
        let (rmf, rides) = try Self.meanMismatch(sigma: 0.1, count: 5, seed: 9_101)
        #expect(rides == 5)
        #expect(rmf <= 0.03, "mean RMF \(rmf) on \(rides) rides")
    }

    @Test("RMF ≤ 0.05 at σ 10 m and 1 Hz (issue 19)")
    func sigmaTen() throws {
        // 0.133 before outliers were skipped and speed and course read (docs/road-network.md, "Map matching").
        let (rmf, rides) = try Self.meanMismatch(sigma: 10, count: 5, seed: 9_202)
        #expect(rides == 5)
        #expect(rmf <= 0.05, "mean RMF \(rmf) on \(rides) rides")
        print("σ 10 m, 5 rides of seed 9 202, speed and course read: RMF \(rmf)")
    }

    @Test("fixes without speed and course (a GPX without them): σ 10 m still ≤ 0.08 — outliers skipped, positions only")
    func sigmaTenPositionsOnly() throws {
        let (rmf, rides) = try Self.meanMismatch(sigma: 10, count: 5, seed: 9_202, velocityNoise: nil)
        #expect(rides == 5)
        #expect(rmf <= 0.08, "mean RMF \(rmf) on \(rides) rides")
        print("σ 10 m, 5 rides of seed 9 202, positions only: RMF \(rmf)")
    }
}
