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
        if ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SWEEP"] == "interpolation" {
            for sigmas in [2.0, 3.0, 5.0] {
                var rules = base
                rules.interpolationSigmas = sigmas
                result.append(("interpolation \(sigmas)σ", rules))
            }
            return result
        }
        if ProcessInfo.processInfo.environment["WAYPOINT_MATCH_SWEEP"] == "between" {
            for weight in [0.5, 0.75, 1.0] {
                var rules = base
                rules.interpolatedEvidence = weight
                result.append(("between ×\(weight)", rules))
            }
            return result
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

    /// The tolerance of the geometric measure beside the RMF (``RouteMismatch/beyond(tolerance:truth:matched:)``;
    /// `WAYPOINT_MATCH_BUFFER`, metres; 10 by default).
    static let bufferTolerance = Double(ProcessInfo.processInfo.environment["WAYPOINT_MATCH_BUFFER"] ?? "") ?? 10

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
                var added = 0.0, missed = 0.0, buffered = 0.0
                let rmfs = rides.map { ride in
                    let result = matcher.match(ride.observations)
                    let matched = result.pieces.map(\.osmNodes)
                    buffered += RouteMismatch.beyond(tolerance: Self.bufferTolerance, truth: ride.route.geometry,
                                                     matched: result.pieces.map { $0.geometry.map { RoadPoint(latitude: $0.latitude, longitude: $0.longitude) } })
                    let truth = RouteMismatch.pairs([ride.truth]), found = RouteMismatch.pairs(matched)
                    let total = truth.reduce(0) { $0 + (router.segmentLength($1) ?? 0) }
                    added += found.subtracting(truth).reduce(0) { $0 + (router.segmentLength($1) ?? 0) } / max(total, 1)
                    missed += truth.subtracting(found).reduce(0) { $0 + (router.segmentLength($1) ?? 0) } / max(total, 1)
                    return router.routeMismatch(truth: [ride.truth], matched: matched)
                }
                let count = Double(max(rmfs.count, 1))
                let mean = rmfs.reduce(0, +) / count
                print("TUNING seed \(seed)\(truthWeights == nil ? "" : " shortest") σ \(sigma) v \(velocityNoise.map { "\($0)" } ?? "none") \(name): RMF \(String(format: "%.3f", mean)) (added \(String(format: "%.3f", added / count)), missed \(String(format: "%.3f", missed / count))) on \(rmfs.count) rides; beyond \(Int(Self.bufferTolerance)) m \(String(format: "%.3f", buffered / count))",
                      rmfs.map { String(format: "%.2f", $0) }.joined(separator: " "))
            }
        }
    }
}

/// One ride of a sweep looked at closely (`WAYPOINT_MATCH_RIDE=k` with the sweep's seed, σ and truth): the stretches
/// the matcher added and missed, with their ways and the fixes beside them. A debugging aid, off by default.
@Suite("Map matching: one ride in detail (WAYPOINT_MATCH_RIDE)")
struct MapMatchRideDetailTests {
    @Test("added and missed stretches of one ride", .enabled(if: ProcessInfo.processInfo.environment["WAYPOINT_MATCH_RIDE"] != nil))
    func detail() throws {
        let router = try #require(RouteFixtures.kremsRouter)
        let environment = ProcessInfo.processInfo.environment
        let seed = UInt64(environment["WAYPOINT_MATCH_SEED"] ?? "") ?? 7_301
        let index = Int(environment["WAYPOINT_MATCH_RIDE"] ?? "") ?? 0
        let sigma = Double((environment["WAYPOINT_MATCH_SIGMAS"] ?? "10").split(separator: ",").first ?? "10") ?? 10
        let truthWeights = environment["WAYPOINT_MATCH_TRUTH"] == "shortest" ? RoadWeights(matchingCostsOf: router.graph, exponent: 0) : nil
        let rides = RideSimulator(router: router).rides(count: index + 1, length: 1_500...3_000,
                                                        settings: .init(noiseSigma: sigma, velocityNoise: 0.5), seed: seed, weights: truthWeights)
        let ride = rides[index]
        var rules = MapMatchRules()
        if environment["WAYPOINT_MATCH_PRIOR"] == "off" { (rules.preferenceExponent, rules.minorWayFactor) = (0, 1) }
        let result = MapMatcher(router: router, rules: rules).match(ride.observations)
        let graph = router.graph
        func describe(_ pair: CostOverlay.NodePair) -> String {
            guard let point = router.locator.segments(pair).first?.point else { return "?" }
            let way = graph.ways[Int(graph.edgeWays[graph.edge(ofPoint: point)])]
            return "\(way.name ?? "-")/\(way.use.wayClass)/\(way.use.mode)/pref \(way.use.preference)\(way.use.inCycleNetwork ? "/network" : "")"
        }
        let truth = RouteMismatch.pairs([ride.truth]), found = RouteMismatch.pairs(result.pieces.map(\.osmNodes))
        print("RIDE seed \(seed) #\(index) σ \(sigma): \(ride.observations.count) fixes, truth \(Int(ride.route.distance)) m, RMF",
              String(format: "%.3f", router.routeMismatch(truth: [ride.truth], matched: result.pieces.map(\.osmNodes))),
              "pieces", result.pieces.map { "\($0.firstObservation)…\($0.lastObservation) \(Int($0.length)) m" })
        // Runs along each sequence of pairs that are in one set and not the other.
        func runs(_ sequence: [Int64], missing from: Set<CostOverlay.NodePair>, label: String) {
            var run: [CostOverlay.NodePair] = []
            func flush() {
                guard !run.isEmpty else { return }
                let metres = run.reduce(0) { $0 + (router.segmentLength($1) ?? 0) }
                let names = run.map(describe).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
                // How far the run lies from the other side's line: the mean over its shape points of the nearest
                // distance to the matched pieces' (or the truth's) geometry, point to segment in a local plane.
                let other: [[RoadPoint]] = label == "missed" ? result.pieces.map { $0.geometry.map { RoadPoint(latitude: $0.latitude, longitude: $0.longitude) } } : [ride.route.geometry]
                var apart: [Double] = []
                for pair in run {
                    guard let point = router.locator.segments(pair).first?.point else { continue }
                    let (lat, lng) = (graph.shapeLatitudes[point], graph.shapeLongitudes[point])
                    let scale = 111_195.0, scaleX = scale * cos(lat * .pi / 180)
                    var best = Double.infinity
                    for line in other where line.count > 1 {
                        for k in 1..<line.count {
                            let ax = (line[k - 1].longitude - lng) * scaleX, ay = (line[k - 1].latitude - lat) * scale
                            let bx = (line[k].longitude - lng) * scaleX, by = (line[k].latitude - lat) * scale
                            let dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy
                            let t = l2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / l2)) : 0
                            best = min(best, ((ax + t * dx) * (ax + t * dx) + (ay + t * dy) * (ay + t * dy)).squareRoot())
                        }
                    }
                    apart.append(best)
                }
                let sorted = apart.sorted()
                print("RIDE \(label) \(Int(metres)) m from node \(run[0].from), apart median \(sorted.isEmpty ? -1 : Int(sorted[sorted.count / 2])) m max \(Int(sorted.last ?? -1)) m: \(names.joined(separator: " → "))")
                run = []
            }
            for k in 1..<max(sequence.count, 1) where sequence[k - 1] != sequence[k] {
                let pair = CostOverlay.NodePair(from: sequence[k - 1], to: sequence[k])
                if from.contains(pair) { flush() } else { run.append(pair) }
            }
            flush()
        }
        if environment["WAYPOINT_MATCH_NODES"] != nil {
            print("RIDE truth nodes", ride.truth.map(String.init).joined(separator: " "))
            for piece in result.pieces { print("RIDE piece nodes", piece.osmNodes.map(String.init).joined(separator: " ")) }
        }
        runs(ride.truth, missing: found, label: "missed")
        for piece in result.pieces { runs(piece.osmNodes, missing: truth, label: "added") }
        for (k, fix) in result.fixes.enumerated() {
            print("RIDE fix \(k) t \(Int(ride.observations[k].time)) \(fix.state) d \(fix.distance.map { String(format: "%.1f", $0) } ?? "-") piece \(fix.piece.map(String.init) ?? "-")",
                  String(format: "%.6f,%.6f", ride.observations[k].latitude, ride.observations[k].longitude))
        }
    }
}
