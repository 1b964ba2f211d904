import Foundation
import Testing
@testable import RoadNetwork

/// A sweep of matcher rules on synthetic Krems rides (``RideSimulator``, as in ``MapMatchAccuracyTests``) printing the
/// mean route mismatch per setting: how the constants in `docs/road-network.md` were chosen. Off by default (slow in
/// debug); run with `WAYPOINT_MATCH_TUNING=1`.
@Suite("Map matching: rule sweep (WAYPOINT_MATCH_TUNING)")
struct MapMatchTuningTests {
    static let enabled = ProcessInfo.processInfo.environment["WAYPOINT_MATCH_TUNING"] != nil

    /// The settings compared: a name and the rules.
    static func settings() -> [(String, MapMatchRules)] {
        var result: [(String, MapMatchRules)] = [("default", MapMatchRules())]
        for factor in [1.5, 2.0, 3.0] {
            var rules = MapMatchRules()
            rules.minorWayFactor = factor
            result.append(("minor ×\(factor)", rules))
        }
        for beta in [1.5, 6.0] {
            var rules = MapMatchRules()
            rules.beta = beta
            result.append(("β \(beta)", rules))
        }
        return result
    }

    @Test("mean RMF per setting at σ 10 and 20 m", .enabled(if: enabled))
    func sweep() throws {
        let router = try #require(RouteFixtures.kremsRouter)
        let seed = UInt64(ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SEED"] ?? "") ?? 7_301
        for sigma in [10.0, 20.0] {
            let rides = RideSimulator(router: router).rides(count: 8, length: 1_500...3_000,
                                                            settings: .init(noiseSigma: sigma), seed: seed)
            for (name, rules) in Self.settings() {
                let matcher = MapMatcher(router: router, rules: rules)
                let rmfs = rides.map { router.routeMismatch(truth: [$0.truth], matched: matcher.match($0.observations).pieces.map(\.osmNodes)) }
                let mean = rmfs.reduce(0, +) / Double(max(rmfs.count, 1))
                print("TUNING seed \(seed) σ \(sigma) \(name): RMF \(String(format: "%.3f", mean)) on \(rmfs.count) rides",
                      rmfs.map { String(format: "%.2f", $0) }.joined(separator: " "))
            }
        }
    }
}
