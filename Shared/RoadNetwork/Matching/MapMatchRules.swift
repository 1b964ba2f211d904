import Foundation

/// The constants of the hidden-Markov-model map matcher (Newson & Krumm 2009), with Valhalla Meili's defaults where
/// Meili has one (`docs/road-network.md`, "Map matching"). Distances in metres, times in seconds.
public struct MapMatchRules: Sendable, Hashable {
    /// σ_z: standard deviation of a fix's distance to the street it was taken on, for fixes without an accuracy
    /// (Newson & Krumm's estimate; Meili's `sigma_z`). A fix's own accuracy, when larger, is used instead.
    public var sigmaZ = 4.07
    /// β: scale of the exponential on |route distance − great-circle distance| between consecutive fixes (Meili's `beta`),
    /// for fixes of σ_z; scaled by the two fixes' mean σ / σ_z when they report a larger accuracy (the difference is
    /// mostly their noise).
    public var beta = 3.0
    /// Candidate search radius for a fix without accuracy (Meili's `search_radius`).
    public var searchRadius = 50.0
    /// With an accuracy, the radius is this many times it (3σ holds 99 % of a 2-D Gaussian's fixes) …
    public var accuracyRadiusFactor = 3.0
    /// … within these bounds.
    public var minimumSearchRadius = 15.0
    public var maximumSearchRadius = 100.0
    /// Candidate edges kept per fix, nearest first (each gives a state per direction it may be ridden).
    public var maximumCandidates = 8
    /// A route between consecutive fixes longer than this is no transition: the ride breaks there (Meili's
    /// `breakage_distance`).
    public var breakageDistance = 2_000.0
    /// … and so is one longer than this many times the fixes' great-circle distance plus both search radii (Meili's
    /// `max_route_distance_factor`).
    public var maximumRouteDistanceFactor = 5.0
    /// A fix nearer than this (or than its own σ, when larger) to the last matched fix is interpolated, not matched
    /// (Meili's `interpolation_distance`).
    public var interpolationDistance = 10.0
    /// … or this many times the fix's σ, when more: Newson & Krumm match only fixes at least about 2σ apart, as nearer
    /// ones say more about their noise than about the route (at σ 10 m, fixes 5 m apart otherwise read as turns and
    /// loops). 4 was measured best of 1–5 short of cutting real detours off (`docs/road-network.md`, "Interpolation").
    public var interpolationSigmas = 4.0
    /// Weight of the evidence of the fixes between two matched ones (interpolated, above): each is scored against
    /// every candidate route between the two, ½ (d / σ)² up to ``interpolatedCostCap``, times this weight, added to the
    /// transition's cost (0: off — they say nothing about which route was ridden).
    public var interpolatedEvidence = 1.0
    /// The most one fix between two steps adds (before the weight), nats: ½ · 3² — a fix beyond 3σ of every route
    /// (an outlier) cannot decide alone.
    public var interpolatedCostCap = 4.5
    /// Seconds between consecutive fixes beyond which the ride breaks (the phone lost its fix, or the rider took a
    /// train): nothing is invented across the gap.
    public var maximumTimeGap = 120.0
    /// Metres a fix may fall back along the edge it is on without the matcher reading a U-turn (GPS noise) …
    public var backtrackTolerance = 15.0
    /// … or this many times the sum of the two fixes' σ, when more (the noise along the street of two fixes).
    public var backtrackSigmas = 2.0
    /// Metres added to the cost of a transition whose route turns back on an edge it just rode: noise beside a
    /// junction should not read as a detour into a side street and back (a rider rarely turns round).
    public var uTurnPenalty = 200.0
    /// κ in the way-preference cost: riding a metre of a way of preference p costs (pmax / p)^κ − 1 extra metres in
    /// the transition (0: no preference; cycleways cost least), so of two parallel ways the track fits about equally,
    /// the cycleway wins.
    public var preferenceExponent = 0.5
    /// Extra factor on the matching cost of a minor way (``minorWayClasses``: service ways, footways, paths, tracks —
    /// unless designated for bicycles or in a cycle network, which raises their preference above their class's):
    /// with noisy fixes a short-cut through one beside the street fits the fixes' great-circle distance better than
    /// the street's corner (1: no extra). 2 lowers the σ 10 m RMF on 3 of 3 Krems seed sets (0.128→0.086,
    /// 0.145→0.109, 0.057→0.053) and σ 20 m likewise (`docs/road-network.md`, "Map matching").
    public var minorWayFactor = 2.0
    /// The `highway` classes ``minorWayFactor`` applies to.
    public var minorWayClasses: Set<String> = ["service", "footway", "path", "pedestrian", "track", "steps", "platform", "bridleway"]

    /// A fix's course (``MatchObservation/course``) counts only at this ground speed or more (m/s): below it, the
    /// Doppler velocity's noise swamps its direction (and a walking or standing rider turns freely).
    public var courseMinimumSpeed = 2.0
    /// The velocity noise (m/s, per axis) the matcher assumes of a fix's Doppler velocity: its course is then good to
    /// σ_θ = atan(noise / speed) — 8° at 7 m/s, 11° at 5 m/s, 27° at 2 m/s. A phone's Doppler velocity is typically good to a few tenths of a m/s;
    /// 1 assumes worse, so a course only lifts the cost of candidates far off it.
    public var courseVelocityNoise = 1.0
    /// The most a course disagreeing with a candidate's direction of travel adds to its emission cost (nats): the
    /// cost is ½ (Δθ / σ_θ)² up to this, so a wrong course (a turn mid-fix, multipath) cannot outweigh the positions.
    /// `0` ignores courses.
    public var courseCostCap = 4.5

    /// With speeds reported, a route between two fixes is at most (the fastest speed the fixes from one to the other
    /// report + this margin, m/s) × their time apart + both search radii: the rider cannot have ridden farther, and the
    /// candidates lie within the radii of the fixes (3 × ``courseVelocityNoise``: the speeds' own noise).
    public var speedBoundMargin = 3.0
    /// The cost (nats) of taking one fix for an outlier: a step may be skipped — reached past, its fix unmatched —
    /// when reaching it costs more than this over skipping it (up to ``MatchViterbi/maximumSkippedSteps`` in a row).
    /// Without it, a fix whose street lies outside its search radius (1 in 90 at 3σ) has only wrong candidates, and
    /// the route must loop through one of them. `.infinity`: never.
    public var outlierCost = 10.0

    /// Steps (matched fixes) that must lie between two outlier skips on one path: a path that needs outliers more
    /// often than that is on the wrong street — its fixes skipped wherever it parts from the street ridden. With 1
    /// fix in 90 beyond a 3σ radius, 5 forbids about 1 genuine second outlier in 18 (`docs/road-network.md`).
    public var outlierSpacing = 5

    /// Fixes read at each end of a piece to place its start and end (``MatchAssembly``'s end refinement: the mean of
    /// their places less the metres ridden since, instead of the first or last fix's projection alone); `0` leaves the
    /// ends where the first and last matched fix project.
    public var endFixes = 15

    /// The defaults above.
    public init() {}

    /// The σ of a fix's emission: its accuracy when it reports one larger than σ_z, else σ_z.
    func sigma(accuracy: Double?) -> Double {
        guard let accuracy, accuracy.isFinite, accuracy > sigmaZ else { return sigmaZ }
        return min(accuracy, maximumSearchRadius)
    }

    /// The σ_θ (radians) of a fix's course, or `nil` when its course is unknown, invalid, too slow to count, or
    /// courses are off.
    func courseSigma(speed: Double?, course: Double?) -> Double? {
        guard courseCostCap > 0, let speed, let course, speed.isFinite, course.isFinite, course >= 0,
              speed >= courseMinimumSpeed else { return nil }
        return atan2(courseVelocityNoise, speed)
    }

    /// The course's share of a candidate's emission cost: ½ (Δθ / σ_θ)² up to ``courseCostCap``, Δθ the angle between
    /// the fix's course and the candidate's direction of travel (both in degrees clockwise from north).
    func courseCost(course: Double, sigma: Double, bearing: Double) -> Double {
        var difference = (course - bearing).truncatingRemainder(dividingBy: 360)
        if difference < 0 { difference += 360 }
        let radians = min(difference, 360 - difference) * .pi / 180
        return min(0.5 * (radians / sigma) * (radians / sigma), courseCostCap)
    }

    /// How near to the last matched fix a fix of σ `sigma` is interpolated instead of matched.
    func interpolation(sigma: Double) -> Double {
        max(interpolationDistance, interpolationSigmas * sigma)
    }

    /// The candidate search radius of a fix.
    func radius(accuracy: Double?) -> Double {
        guard let accuracy, accuracy.isFinite, accuracy > 0 else { return searchRadius }
        return min(max(accuracyRadiusFactor * accuracy, minimumSearchRadius), maximumSearchRadius)
    }
}
