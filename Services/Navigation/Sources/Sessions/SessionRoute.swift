import Foundation
import Geo
import RoadNetwork

/// A route as a session follows it: the geometry with metres from the start at every point, and the steps with where
/// each begins — everything position tracking needs, stored in the session's events so any instance (or a restarted
/// one) continues the session without searching again.
public struct SessionRoute: Codable, Sendable, Hashable {
    /// One step: its maneuver, road and where it begins along the route.
    public struct Step: Codable, Sendable, Hashable {
        public var kind: String
        public var modifier: String?
        public var exit: Int?
        public var name: String
        public var ref: String?
        public var wayClass: String
        public var latitude: Double
        public var longitude: Double
        public var bearingBefore: Int
        public var bearingAfter: Int
        /// Metres and seconds of the step.
        public var distance: Double
        public var duration: Double
        /// Metres from the route's start where the step's maneuver is.
        public var along: Double
        /// An `arrive` at the route's end (a via point's arrival is not final).
        public var final: Bool
    }

    /// `[lat, lng]` pairs.
    public var points: [[Double]]
    /// Metres from the start at each point.
    public var cumulative: [Double]
    public var distance: Double
    public var duration: Double
    public var steps: [Step]
}

extension SessionRoute {
    /// The route of a planned one (all its legs, in order).
    public init(_ planned: PlannedRoute) {
        let geometry = planned.geometry
        var cumulative: [Double] = [0]
        for (a, b) in zip(geometry, geometry.dropFirst()) { cumulative.append(cumulative.last! + a.metres(to: b)) }
        // Scale to the router's metres so steps' `along` and the geometry agree.
        let total = cumulative.last ?? 0
        let scale = total > 0 ? planned.distance / total : 1
        var steps: [Step] = []
        var along = 0.0
        for (index, leg) in planned.legs.enumerated() {
            for step in leg.steps {
                steps.append(Step(kind: step.maneuver.kind.rawValue, modifier: step.maneuver.modifier?.rawValue, exit: step.maneuver.exit, name: step.name,
                                  ref: step.ref, wayClass: step.wayClass, latitude: step.maneuver.location.latitude,
                                  longitude: step.maneuver.location.longitude, bearingBefore: step.maneuver.bearingBefore,
                                  bearingAfter: step.maneuver.bearingAfter, distance: step.distance, duration: step.duration, along: along,
                                  final: step.maneuver.kind == .arrive && index == planned.legs.count - 1))
                along += step.distance
            }
        }
        self.init(points: geometry.map { [$0.latitude, $0.longitude] }, cumulative: cumulative.map { $0 * scale }, distance: planned.distance,
                  duration: planned.duration, steps: steps)
    }

    /// The step as the guidance library reads it (for its words).
    public func routeStep(_ index: Int) -> RouteStep? {
        guard steps.indices.contains(index) else { return nil }
        let step = steps[index]
        let maneuver = RouteManeuver.stored(kind: RouteManeuver.Kind(rawValue: step.kind) ?? .turn, modifier: step.modifier.flatMap(RouteManeuver.Modifier.init),
                                     location: RoadPoint(latitude: step.latitude, longitude: step.longitude),
                                     bearingBefore: step.bearingBefore, bearingAfter: step.bearingAfter, exit: step.exit)
        return RouteStep.stored(maneuver: maneuver, name: step.name, ref: step.ref, wayClass: step.wayClass, distance: step.distance,
                         duration: step.duration, weight: step.distance, geometry: [])
    }

    /// Where a point lies against the route: the nearest point on it at or after `notBefore` metres (so a rider is
    /// never matched back to a stretch already ridden, unless nothing ahead is near), its distance, and the route's
    /// bearing there.
    public struct Match: Sendable, Hashable {
        public var along: Double
        public var distance: Double
        public var bearing: Double
        public var point: RoadPoint
    }

    /// The match of `point`, searching from `notBefore` metres on (Geo's segment projection, the route's metres along
    /// interpolated by the foot point's fraction).
    ///
    /// A segment that cannot come nearer than the best match so far is passed over without projecting onto it
    /// (``MatchBound``: a lower bound of its distance from arithmetic alone), so the result is the one projecting onto
    /// every segment gives, at a fraction of the trigonometry on a long route.
    public func match(_ point: RoadPoint, notBefore: Double) -> Match? {
        guard points.count >= 2, let fix = point.coordinate else { return nil }
        let bound = MatchBound(fix)
        var best: Match?
        // The first segment ending at or after `notBefore` (`cumulative` never decreases): the ones before it are
        // not looked at.
        var low = 0, high = points.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid + 1] >= notBefore { high = mid } else { low = mid + 1 }
        }
        for index in low..<(points.count - 1) where cumulative[index + 1] >= notBefore {
            if let best, bound.cannotBeat(best.distance, from: points[index], to: points[index + 1]) { continue }
            guard let a = try? Coordinate(latitude: points[index][0], longitude: points[index][1]),
                  let b = try? Coordinate(latitude: points[index + 1][0], longitude: points[index + 1][1]) else { continue }
            let foot = Segment(from: a, to: b).projection(of: fix)
            guard best == nil || foot.distance < best!.distance else { continue }
            let along = cumulative[index] + foot.fraction * (cumulative[index + 1] - cumulative[index])
            best = Match(along: max(along, notBefore), distance: foot.distance, bearing: a == b ? 0 : a.initialBearing(to: b),
                         point: RoadPoint(latitude: foot.point.latitude, longitude: foot.point.longitude))
        }
        return best
    }

    /// The index of the step being ridden at `along` metres (the last whose maneuver is at or before it).
    public func stepIndex(at along: Double) -> Int {
        var index = 0
        for (i, step) in steps.enumerated() where step.along <= along + 0.01 { index = i }
        return index
    }

    /// Seconds left from `along` metres: the rest of the current step pro rata, then the following steps.
    public func remainingDuration(from along: Double) -> Double {
        let index = stepIndex(at: along)
        let step = steps[index]
        let left = step.distance > 0 ? max(0, step.along + step.distance - along) / step.distance * step.duration : 0
        return left + steps[(index + 1)...].reduce(0) { $0 + $1.duration }
    }

    /// The route's end.
    public var destination: RoadPoint? { points.last.map { RoadPoint(latitude: $0[0], longitude: $0[1]) } }
}

extension SessionRoute {
    /// The point `along` metres from the start (clamped to the route).
    public func point(at along: Double) -> RoadPoint? {
        guard let first = points.first else { return nil }
        guard points.count >= 2 else { return RoadPoint(latitude: first[0], longitude: first[1]) }
        var low = 0, high = cumulative.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if cumulative[mid] <= along { low = mid } else { high = mid }
        }
        let span = cumulative[high] - cumulative[low]
        let t = span > 0 ? min(max((along - cumulative[low]) / span, 0), 1) : 0
        let a = points[low], b = points[high]
        return RoadPoint(latitude: a[0] + t * (b[0] - a[0]), longitude: a[1] + t * (b[1] - a[1]))
    }
}

/// A lower bound, from arithmetic and one square root, of the great-circle distance from a fix to any point Geo's
/// segment projection can return for a segment `a`–`b`:
///
/// - distance(fix, a) ≥ 2R·√h with h = sin²(Δφ/2) + cos φ_fix · cos φ_a · sin²(Δλ/2) (haversine, asin y ≥ y), where
///   sin x ≥ x − x³/6 (0 ≤ x ≤ 1) and cos φ_a ≥ cos φ_fix − |Δφ| (cos is 1-Lipschitz);
/// - distance(a, foot) ≤ R·(|Δφ_ab| + |Δλ_ab|): the foot lies between a and b in latitude and longitude (the local
///   plane interpolates them; the spherical projection returns a point of the arc or an end), and a meridian then a
///   parallel joins a to it in at most that length;
/// - so distance(fix, foot) ≥ distance(fix, a) − distance(a, foot) (triangle inequality).
///
/// Where the bound does not hold by these arguments (long segments, the antimeridian) it answers "may beat".
struct MatchBound {
    let latitude: Double
    let longitude: Double
    let cosine: Double
    static let radius = Earth.meanRadius
    static let radiansPerDegree = Double.pi / 180
    /// Metres of slack for rounding.
    static let slack = 0.001

    init(_ fix: Coordinate) {
        latitude = fix.latitude
        longitude = fix.longitude
        cosine = cos(fix.latitude * Self.radiansPerDegree)
    }

    /// Whether no point of the segment `a`–`b` (`[lat, lng]`) can be nearer than `distance` metres.
    func cannotBeat(_ distance: Double, from a: [Double], to b: [Double]) -> Bool {
        let dLat = abs(a[0] - latitude) * Self.radiansPerDegree, dLng = abs(a[1] - longitude) * Self.radiansPerDegree
        let segment = (abs(b[0] - a[0]) + abs(b[1] - a[1])) * Self.radiansPerDegree
        guard dLat <= 2, dLng <= 2, segment <= 0.1 else { return false }
        let x = dLat / 2, y = dLng / 2
        let sinLat = x - x * x * x / 6, sinLng = y - y * y * y / 6
        let h = sinLat * sinLat + cosine * max(0, cosine - dLat) * sinLng * sinLng
        let toStart = 2 * Self.radius * h.squareRoot()
        return toStart - Self.radius * segment - Self.slack > distance
    }
}
