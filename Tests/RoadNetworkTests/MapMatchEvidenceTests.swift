import Foundation
import Testing
@testable import RoadNetwork

/// What the matcher reads besides positions — a fix's Doppler speed and course — and how it copes with a fix whose
/// street lies outside its search radius (`docs/road-network.md`, "Map matching": "Course", "Transition", "Gaps and
/// outliers").
@Suite("Map matching: course, speed and outliers")
struct MapMatchEvidenceTests {
    static let router = RouteFixtures.kremsRouter

    static func ride(sigma: Double, velocityNoise: Double? = 0.5, seed: UInt64 = 7) throws -> RideSimulator.Ride {
        let router = try #require(router)
        let settings = RideSimulator.Settings(noiseSigma: sigma, velocityNoise: velocityNoise)
        return try #require(RideSimulator(router: router).rides(count: 1, length: 1_000...2_000, settings: settings, seed: seed).first)
    }

    /// Degrees between two bearings, 0–180.
    static func angle(_ a: Double, _ b: Double) -> Double {
        let difference = abs((a - b).truncatingRemainder(dividingBy: 360))
        return min(difference, 360 - difference)
    }

    @Test("the simulator's speed and course: the positions do not depend on them; the course follows the route to a few degrees")
    func simulatedVelocity() throws {
        let with = try Self.ride(sigma: 0), without = try Self.ride(sigma: 0, velocityNoise: nil)
        #expect(with.observations.map(\.latitude) == without.observations.map(\.latitude))
        #expect(with.observations.map(\.longitude) == without.observations.map(\.longitude))
        #expect(without.observations.allSatisfy { $0.speed == nil && $0.course == nil })
        // σ 0: the positions are the truth, so the bearing from each fix to the next is the route's, except across a bend.
        var differences: [Double] = []
        for (a, b) in zip(with.observations, with.observations.dropFirst()) {
            let north = b.latitude - a.latitude, east = (b.longitude - a.longitude) * cos(a.latitude * .pi / 180)
            var bearing = atan2(east, north) * 180 / .pi
            if bearing < 0 { bearing += 360 }
            let course = try #require(a.course), speed = try #require(a.speed)
            #expect((0..<360).contains(course))
            #expect(speed >= 0 && speed < 7 + 4 * 0.5)
            differences.append(Self.angle(course, bearing))
        }
        let sorted = differences.sorted()
        // 0.5 m/s of velocity noise at 4–7 m/s: σ_θ 4–7°; the median is about 0.67 σ_θ, bends aside.
        #expect(sorted[sorted.count / 2] < 6, "median \(sorted[sorted.count / 2])°")
    }

    @Test("a fix's course raises the emission cost of candidates riding across or against it, up to the cap; none without a course or below 2 m/s")
    func courseEmission() throws {
        let router = try #require(Self.router)
        let rules = MapMatchRules()
        let ride = try Self.ride(sigma: 5)
        let lattice = MatchLattice(ride.observations, index: router.snapIndex, rules: rules)
        var against = 0, along = 0
        for step in 0..<lattice.stepCount {
            let fix = ride.observations[lattice.observations[step]]
            for state in lattice.stateRange(step).map({ lattice.states[$0] }) {
                let position = 0.5 * (state.distance / lattice.sigmas[step]) * (state.distance / lattice.sigmas[step])
                let course = state.emission - position
                #expect(course >= -1e-9 && course <= rules.courseCostCap + 1e-9)
                guard (fix.speed ?? 0) >= rules.courseMinimumSpeed, let heading = fix.course else {
                    #expect(abs(course) < 1e-9)
                    continue
                }
                // The bearing the state rides, from its edge's two ends (a straight enough edge).
                let (from, to) = (MatchTransitions.startVertex(router.graph, state), MatchTransitions.endVertex(router.graph, state))
                let north = router.graph.vertexLatitudes[to] - router.graph.vertexLatitudes[from]
                let east = (router.graph.vertexLongitudes[to] - router.graph.vertexLongitudes[from]) * cos(fix.latitude * .pi / 180)
                let bearing = atan2(east, north) * 180 / .pi
                if Self.angle(heading, bearing) > 150 { against += 1; #expect(course > 3, "against the course: \(course)") }
                if Self.angle(heading, bearing) < 3, router.graph.edgeShapeStarts[state.edge + 1] - router.graph.edgeShapeStarts[state.edge] == 2 {
                    along += 1
                    #expect(course < 0.5, "along the course: \(course)")
                }
            }
        }
        #expect(against > 10 && along > 5)
        // Without speed and course, or too slow, or an invalid course (iOS: -1): positions only.
        var slow = ride.observations
        for k in slow.indices { (slow[k].speed, slow[k].course) = k % 3 == 0 ? (nil, nil) : (k % 3 == 1 ? (1.5, slow[k].course) : (6, -1)) }
        let plain = MatchLattice(slow, index: router.snapIndex, rules: rules)
        for step in 0..<plain.stepCount {
            for state in plain.stateRange(step).map({ plain.states[$0] }) {
                #expect(abs(state.emission - 0.5 * (state.distance / plain.sigmas[step]) * (state.distance / plain.sigmas[step])) < 1e-9)
            }
        }
    }

    @Test("with speeds, a route between two fixes is bounded by (fastest speed + 3 m/s) × time apart + both radii; without, by Meili's bound")
    func speedBound() throws {
        let router = try #require(Self.router)
        let rules = MapMatchRules()
        let ride = try Self.ride(sigma: 10)
        let lattice = MatchLattice(ride.observations, index: router.snapIndex, rules: rules)
        var plain = ride.observations
        for k in plain.indices { plain[k].speed = nil }
        let unbounded = MatchLattice(plain, index: router.snapIndex, rules: rules)
        try #require(lattice.stepCount == unbounded.stepCount && lattice.stepCount > 10)
        var tighter = 0
        for step in 1..<lattice.stepCount {
            let gap = lattice.gap(from: step - 1, to: step, fixes: ride.observations, rules: rules)
            let meili = unbounded.gap(from: step - 1, to: step, fixes: plain, rules: rules)
            let (a, b) = (lattice.observations[step - 1], lattice.observations[step])
            let fastest = ride.observations[a...b].compactMap(\.speed).max() ?? 0
            let speedBound = (fastest + rules.speedBoundMargin) * (ride.observations[b].time - ride.observations[a].time)
                + lattice.radii[step - 1] + lattice.radii[step]
            #expect(abs(gap.bound - min(meili.bound, speedBound)) < 1e-6)
            if gap.bound < meili.bound { tighter += 1 }
        }
        #expect(tighter > 0)
    }

    @Test("a fix pulled 40 m off its street onto another way is skipped as an outlier instead of ridden to and back")
    func outlier() throws {
        let router = try #require(Self.router)
        var noSkip = MapMatchRules()
        noSkip.outlierCost = .infinity
        let matcher = MapMatcher(router: router), plain = MapMatcher(router: router, rules: noSkip)
        let ride = try Self.ride(sigma: 3)
        let clean = router.routeMismatch(truth: [ride.truth], matched: matcher.match(ride.observations).pieces.map(\.osmNodes))
        var skipped: [Double] = [], ridden: [Double] = [], unmatched = 0, trials = 0
        for k in stride(from: 20, to: ride.observations.count - 20, by: 7) {
            for (north, east) in [(40.0, 0.0), (0, 40), (-40, 0), (0, -40)] {
                var fixes = ride.observations
                fixes[k].latitude += north / 111_195
                fixes[k].longitude += east / (111_195 * cos(fixes[k].latitude * .pi / 180))
                // Only where the moved fix has a street within its radius (15 m) and its own street is out of it.
                let near = router.snapIndex.edges(within: 15, latitude: fixes[k].latitude, longitude: fixes[k].longitude)
                guard !near.isEmpty else { continue }
                trials += 1
                let result = matcher.match(fixes)
                if result.fixes[k].state == .unmatched { unmatched += 1 }
                skipped.append(router.routeMismatch(truth: [ride.truth], matched: result.pieces.map(\.osmNodes)))
                ridden.append(router.routeMismatch(truth: [ride.truth], matched: plain.match(fixes).pieces.map(\.osmNodes)))
            }
        }
        try #require(trials >= 10)
        let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
        #expect(mean(skipped) <= clean + 0.02, "clean \(clean), with an outlier \(skipped)")
        #expect(mean(skipped) < mean(ridden), "skipped \(mean(skipped)), ridden to \(mean(ridden))")
        #expect(unmatched * 2 >= trials, "\(unmatched) of \(trials) moved fixes unmatched")
        print("outliers: \(trials) moved fixes, \(unmatched) unmatched; RMF clean \(clean), skipping \(mean(skipped)), riding to them \(mean(ridden))")
    }

    @Test("outlier skips are spaced: a ride along 860 m of track beside a secondary road stays on the track, where skipping every fix at which the road parts from it kept the road")
    func outlierSpacing() throws {
        // Found on the benchmark's rides (seed 29 = 19 + σ 10, its fifth ride): the matcher's preference costs a track
        // ~12 nats a step more than the road, and with skips allowed at every step the road won with 5 fixes skipped.
        let router = try #require(Self.router)
        let rides = RideSimulator(router: router).rides(count: 5, length: 1_500...3_000, settings: .init(noiseSigma: 10), seed: 29)
        let ride = try #require(rides.last)
        // Found before the fixes between matched ones were scored (`interpolatedEvidence`): with them, the five fixes
        // a step brings tell the track from the road on their own, even with skips allowed at every step.
        var unspaced = MapMatchRules()
        unspaced.outlierSpacing = 0
        var unspacedBlind = unspaced
        unspacedBlind.interpolatedEvidence = 0
        func rmf(_ rules: MapMatchRules) -> Double {
            router.routeMismatch(truth: [ride.truth], matched: MapMatcher(router: router, rules: rules).match(ride.observations).pieces.map(\.osmNodes))
        }
        let spaced = rmf(MapMatchRules()), crowded = rmf(unspaced), crowdedBlind = rmf(unspacedBlind)
        #expect(spaced < 0.2, "RMF \(spaced)")
        #expect(crowded < 0.2, "without spacing, with the fixes between steps: RMF \(crowded)")
        #expect(crowdedBlind > 0.5, "without spacing and without the fixes between steps: RMF \(crowdedBlind) (1.09 when found)")
    }
}
