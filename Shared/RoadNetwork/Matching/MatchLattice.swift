import Foundation

/// One hidden state of the matcher: a fix placed on an edge ridden in one direction.
struct MatchState {
    var edge: Int
    /// Ridden target → source.
    var reversed: Bool
    /// Metres from the edge's start in the direction of travel to the point.
    var position: Double
    var latitude: Double, longitude: Double
    /// Metres from the fix to the point.
    var distance: Double
    /// −log of the emission probability (up to a constant shared by the fix's states): ½ (distance / σ)², plus the
    /// course's share when the fix reports one (``MapMatchRules/courseCost(course:sigma:bearing:)``).
    var emission: Double
}

/// Between two consecutive steps: the fixes' great-circle distance, the longest route allowed and the backtrack
/// tolerance, in metres.
struct MatchGap {
    var greatCircle: Double
    var bound: Double
    var backtrack: Double
    /// β for this transition: the rules' β scaled by the fixes' mean σ over σ_z (never below the rules' β).
    var beta: Double
    /// The interpolated fixes between the two steps (``MapMatchRules/interpolatedEvidence``; empty when that is off).
    var between: [Fix] = []

    /// A fix between two steps: where it is and its σ.
    struct Fix {
        var latitude: Double, longitude: Double, sigma: Double
    }
}

/// The fixes the matcher matches (steps) and their candidate states, in flat arrays; and what became of the others.
///
/// A fix is left out when it is not a valid coordinate and time (unmatched), when it lies nearer than the
/// interpolation distance to the last step (interpolated onto the route later, by time), or when no street lies within
/// its search radius (unmatched).
struct MatchLattice {
    /// The observation of each step.
    private(set) var observations: [Int] = []
    /// Each step's search radius and emission σ in metres.
    private(set) var radii: [Double] = []
    private(set) var sigmas: [Double] = []
    /// Step s has states `states[stateStarts[s] ..< stateStarts[s + 1]]`.
    private(set) var stateStarts: [Int] = [0]
    private(set) var states: [MatchState] = []
    /// For an interpolated observation, the step it is near (the last step before it); -1 for every other observation.
    private(set) var anchors: [Int]

    /// Candidates for every fix of `fixes` from `index`, under `rules`.
    init(_ fixes: [MatchObservation], index: SnapIndex, rules: MapMatchRules) {
        anchors = [Int](repeating: -1, count: fixes.count)
        for (number, fix) in fixes.enumerated() where Self.isValid(fix) {
            if let last = observations.last, fix.time - fixes[last].time <= rules.maximumTimeGap, number != fixes.count - 1,
               RoadGraphBuilder.distance((fix.latitude, fix.longitude), (fixes[last].latitude, fixes[last].longitude))
                < rules.interpolation(sigma: rules.sigma(accuracy: fix.accuracy)) {
                anchors[number] = observations.count - 1
                continue
            }
            let radius = rules.radius(accuracy: fix.accuracy)
            let sigma = rules.sigma(accuracy: fix.accuracy)
            let snaps = index.edges(within: radius, latitude: fix.latitude, longitude: fix.longitude).prefix(rules.maximumCandidates)
            guard !snaps.isEmpty else { continue }
            let graph = index.graph
            let courseSigma = rules.courseSigma(speed: fix.speed, course: fix.course)
            for snap in snaps {
                let length = graph.edgeLengths[snap.edge]
                let emission = 0.5 * (snap.distance / sigma) * (snap.distance / sigma)
                let bearings = courseSigma == nil ? [] : Self.bearings(graph, snap)
                for reversed in [false, true] {
                    let weight = reversed ? graph.edgeBackwardWeights[snap.edge] : graph.edgeForwardWeights[snap.edge]
                    guard weight.isFinite else { continue }
                    var course = 0.0
                    if let courseSigma, let heading = fix.course {
                        course = bearings.map { rules.courseCost(course: heading, sigma: courseSigma, bearing: reversed ? $0 + 180 : $0) }.min() ?? 0
                    }
                    states.append(MatchState(edge: snap.edge, reversed: reversed,
                                             position: reversed ? max(length - snap.offset, 0) : min(snap.offset, length),
                                             latitude: snap.latitude, longitude: snap.longitude, distance: snap.distance,
                                             emission: emission + course))
                }
            }
            observations.append(number)
            radii.append(radius)
            sigmas.append(sigma)
            stateStarts.append(states.count)
        }
    }

    /// Metres from a shape point within which a candidate may be riding either of the two segments meeting there.
    static let bendTolerance = 2.0

    /// The bearings (degrees clockwise from north, source → target) of the shape segment a snap lies on, and of the
    /// next or previous segment of the same edge when the snap lies within ``bendTolerance`` of the bend between them.
    static func bearings(_ graph: RoadGraph, _ snap: SnapIndex.Snap) -> [Double] {
        let start = Int(graph.edgeShapeStarts[snap.edge]), end = Int(graph.edgeShapeStarts[snap.edge + 1])
        let point = start + snap.segment
        func bearing(_ a: Int) -> Double {
            let north = graph.shapeLatitudes[a + 1] - graph.shapeLatitudes[a]
            let east = (graph.shapeLongitudes[a + 1] - graph.shapeLongitudes[a]) * cos(graph.shapeLatitudes[a] * .pi / 180)
            return atan2(east, north) * 180 / .pi
        }
        guard point + 1 < end else { return [] }
        var result = [bearing(point)]
        let here = (snap.latitude, snap.longitude)
        if point > start, RoadGraphBuilder.distance(here, (graph.shapeLatitudes[point], graph.shapeLongitudes[point])) < bendTolerance {
            result.append(bearing(point - 1))
        }
        if point + 2 < end,
           RoadGraphBuilder.distance(here, (graph.shapeLatitudes[point + 1], graph.shapeLongitudes[point + 1])) < bendTolerance {
            result.append(bearing(point + 1))
        }
        return result
    }

    /// Number of steps.
    var stepCount: Int { observations.count }

    /// The state indexes of step `step`.
    func stateRange(_ step: Int) -> Range<Int> { stateStarts[step]..<stateStarts[step + 1] }

    /// The great-circle metres between the fixes of `earlierStep` and `step`, and the longest route allowed between them:
    /// ``MapMatchRules/maximumRouteDistanceFactor`` × that distance plus both search radii, at most the breakage distance.
    /// Also how far the later fix may fall back along an edge without reading as a U-turn: the rules' tolerance, or
    /// ``MapMatchRules/backtrackSigmas`` × the two fixes' σ when that is more (noise along the street).
    func gap(from earlierStep: Int, to step: Int, fixes: [MatchObservation], rules: MapMatchRules) -> MatchGap {
        let earlier = fixes[observations[earlierStep]], later = fixes[observations[step]]
        let greatCircle = RoadGraphBuilder.distance((earlier.latitude, earlier.longitude), (later.latitude, later.longitude))
        var bound = min(rules.breakageDistance, rules.maximumRouteDistanceFactor * greatCircle + radii[earlierStep] + radii[step])
        // Only forwards in time: identical or disordered times say nothing about how far the rider got.
        let elapsed = later.time - earlier.time
        if elapsed > 0, let fastest = fastestSpeed(from: observations[earlierStep], to: observations[step], fixes: fixes) {
            bound = min(bound, (fastest + rules.speedBoundMargin) * elapsed + radii[earlierStep] + radii[step])
        }
        let backtrack = max(rules.backtrackTolerance, rules.backtrackSigmas * (sigmas[earlierStep] + sigmas[step]))
        let beta = rules.beta * max(1, (sigmas[earlierStep] + sigmas[step]) / (2 * rules.sigmaZ))
        var between: [MatchGap.Fix] = []
        if rules.interpolatedEvidence > 0 {
            for number in (observations[earlierStep] + 1)..<max(observations[step], observations[earlierStep] + 1)
            where anchors[number] >= earlierStep && anchors[number] < step {
                let fix = fixes[number]
                between.append(MatchGap.Fix(latitude: fix.latitude, longitude: fix.longitude, sigma: rules.sigma(accuracy: fix.accuracy)))
            }
        }
        return MatchGap(greatCircle: greatCircle, bound: bound, backtrack: backtrack, beta: beta, between: between)
    }

    /// The fastest ground speed the fixes `first...last` report (m/s), or `nil` when one of them reports none (or an
    /// invalid one): then nothing bounds the ride's speed between them.
    func fastestSpeed(from first: Int, to last: Int, fixes: [MatchObservation]) -> Double? {
        guard first <= last else { return nil }
        var fastest = 0.0
        for number in first...last {
            guard let speed = fixes[number].speed, speed.isFinite, speed >= 0 else { return nil }
            fastest = max(fastest, speed)
        }
        return fastest
    }

    /// The step a state belongs to (bisection on the state starts).
    func step(of state: Int) -> Int {
        var (low, high) = (0, stepCount - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if stateStarts[middle] <= state { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// A fix the matcher can use: finite time, latitude within ±90° and longitude within ±180°.
    static func isValid(_ fix: MatchObservation) -> Bool {
        fix.time.isFinite && fix.latitude.isFinite && fix.longitude.isFinite && abs(fix.latitude) <= 90 && abs(fix.longitude) <= 180
    }
}
