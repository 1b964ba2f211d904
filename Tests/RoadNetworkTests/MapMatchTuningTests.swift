import Foundation
import Testing
@testable import RoadNetwork

/// A sweep of matcher rules on synthetic Krems rides (``RideSimulator``, as in ``MapMatchAccuracyTests``) printing the
/// mean route mismatch per setting: how the constants in `docs/road-network.md` were chosen. Off by default (slow in
/// debug); run with `WAYPOINT_MATCH_TUNING=1`.
@Suite("Map matching: rule sweep (WAYPOINT_MATCH_TUNING)")
struct MapMatchTuningTests {
    static let enabled = ProcessInfo.processInfo.environment["WAYPOINT_MATCH_TUNING"] != nil

    /// The settings compared: a name and the rules (`WAYPOINT_MATCH_SWEEP=course` for the course sweep).
    static func settings() -> [(String, MapMatchRules)] {
        var base = MapMatchRules()
        if let spacing = Int(ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SPACING"] ?? "") { base.outlierSpacing = spacing }
        var result: [(String, MapMatchRules)] = [("default", base)]
        if ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SWEEP"] == "course" {
            var off = MapMatchRules()
            off.courseCostCap = 0
            result.append(("no course", off))
            for cap in [2.0, 8.0, 20.0] {
                var rules = MapMatchRules()
                rules.courseCostCap = cap
                result.append(("course cap \(cap)", rules))
            }
            for noise in [0.5, 2.0] {
                var rules = MapMatchRules()
                rules.courseVelocityNoise = noise
                result.append(("course noise \(noise) m/s", rules))
            }
            return result
        }
        if ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SWEEP"] == "parts" {
            // Each of course, speed bound and outlier skip left out in turn, and all three (the matcher before them).
            var noCourse = MapMatchRules(), noSpeed = MapMatchRules(), noOutlier = MapMatchRules(), none = MapMatchRules()
            noCourse.courseCostCap = 0
            noSpeed.speedBoundMargin = .infinity
            noOutlier.outlierCost = .infinity
            (none.courseCostCap, none.speedBoundMargin, none.outlierCost) = (0, .infinity, .infinity)
            return result + [("no course", noCourse), ("no speed bound", noSpeed), ("no outlier skip", noOutlier), ("none (before)", none)]
        }
        if ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SWEEP"] == "ends" {
            for fixes in [0, 5, 10, 25] {
                var rules = base
                rules.endFixes = fixes
                result.append(("end fixes \(fixes)", rules))
            }
            return result
        }
        if ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SWEEP"] == "prior" {
            var none = MapMatchRules()
            (none.preferenceExponent, none.minorWayFactor) = (0, 1)
            return result + [("no preference (κ 0, minor ×1)", none)]
        }
        if ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SWEEP"] == "kappa" {
            for kappa in [0.3, 0.2, 0.1] {
                var rules = MapMatchRules()
                rules.preferenceExponent = kappa
                result.append(("κ \(kappa)", rules))
            }
            return result
        }
        if ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SWEEP"] == "spacing" {
            for spacing in [0, 5, 20] {
                var rules = MapMatchRules()
                rules.outlierSpacing = spacing
                result.append(("outlier spacing \(spacing)", rules))
            }
            var noSkip = MapMatchRules()
            noSkip.outlierCost = .infinity
            return result + [("no outlier skip", noSkip)]
        }
        if ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SWEEP"] == "outlier" {
            for cost in [Double.infinity, 6, 15, 25] {
                var rules = MapMatchRules()
                rules.outlierCost = cost
                result.append(("outlier \(cost)", rules))
            }
            return result
        }
        if ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SWEEP"] == "radius" {
            for factor in [4.0, 5.0] {
                var rules = MapMatchRules()
                rules.accuracyRadiusFactor = factor
                result.append(("radius \(factor)σ", rules))
            }
            var both = MapMatchRules()
            both.accuracyRadiusFactor = 4
            both.maximumCandidates = 12
            result.append(("radius 4σ, 12 edges", both))
            return result
        }
        for factor in [1.0, 1.5, 3.0] {
            var rules = base
            rules.minorWayFactor = factor
            result.append(("minor ×\(factor)", rules))
        }
        for beta in [1.5, 6.0] {
            var rules = base
            rules.beta = beta
            result.append(("β \(beta)", rules))
        }
        return result
    }

    @Test("mean RMF per setting at σ 10 and 20 m", .enabled(if: enabled))
    func sweep() throws {
        let router = try #require(RouteFixtures.kremsRouter)
        let environment = ProcessInfo.processInfo.environment
        let seed = UInt64(environment["WAYPOINT_MATCH_SEED"] ?? "") ?? 7_301
        // The rides' velocity noise (m/s per axis; RideSimulator's default 0.5): a sweep may ride noisier phones, or
        // `none`: fixes without speed and course.
        let velocityNoise: Double? = environment["WAYPOINT_MATCH_VELOCITY_NOISE"] == "none"
            ? nil : Double(environment["WAYPOINT_MATCH_VELOCITY_NOISE"] ?? "") ?? 0.5
        let count = Int(environment["WAYPOINT_MATCH_RIDES"] ?? "") ?? 8
        // `WAYPOINT_MATCH_TRUTH=shortest`: rides along the shortest routes by length, not the bike profile's preferred
        // ones (which share the matcher's preference prior, docs/road-network.md, "The prior").
        let truthWeights = environment["WAYPOINT_MATCH_TRUTH"] == "shortest" ? RoadWeights(matchingCostsOf: router.graph, exponent: 0) : nil
        let sigmas = (environment["WAYPOINT_MATCH_SIGMAS"] ?? "10,20").split(separator: ",").compactMap { Double($0) }
        for sigma in sigmas {
            let rides = RideSimulator(router: router).rides(count: count, length: 1_500...3_000,
                                                            settings: .init(noiseSigma: sigma, velocityNoise: velocityNoise), seed: seed,
                                                            weights: truthWeights)
            for (name, rules) in Self.settings() {
                let matcher = MapMatcher(router: router, rules: rules)
                var added = 0.0, missed = 0.0
                let rmfs = rides.map { ride in
                    let matched = matcher.match(ride.observations).pieces.map(\.osmNodes)
                    let truth = RouteMismatch.pairs([ride.truth]), found = RouteMismatch.pairs(matched)
                    let total = truth.reduce(0) { $0 + (router.segmentLength($1) ?? 0) }
                    added += found.subtracting(truth).reduce(0) { $0 + (router.segmentLength($1) ?? 0) } / max(total, 1)
                    missed += truth.subtracting(found).reduce(0) { $0 + (router.segmentLength($1) ?? 0) } / max(total, 1)
                    return router.routeMismatch(truth: [ride.truth], matched: matched)
                }
                let count = Double(max(rmfs.count, 1))
                let mean = rmfs.reduce(0, +) / count
                print("TUNING seed \(seed)\(truthWeights == nil ? "" : " shortest") σ \(sigma) v \(velocityNoise.map { "\($0)" } ?? "none") \(name): RMF \(String(format: "%.3f", mean)) (added \(String(format: "%.3f", added / count)), missed \(String(format: "%.3f", missed / count))) on \(rmfs.count) rides",
                      rmfs.map { String(format: "%.2f", $0) }.joined(separator: " "))
            }
        }
    }
}
