import Foundation

/// Test and benchmark support: synthetic rides with a known truth. A route from the ``RoadRouter`` between two points
/// is ridden at a bike speed that wanders within a range; a fix is emitted every 1–10 s (drawn per fix from the
/// interval range) with Gaussian noise of σ metres on each axis; a seed makes a ride repeatable. The truth is the
/// route's OSM node sequence (its directed pairs, for ``RouteMismatch``).
public struct RideSimulator: Sendable {
    /// The router the routes come from.
    public let router: RoadRouter

    /// How a ride is simulated.
    public struct Settings: Sendable, Hashable {
        /// Standard deviation of the position noise in metres, per axis (north and east).
        public var noiseSigma: Double
        /// Seconds between fixes, drawn uniformly per fix.
        public var interval: ClosedRange<Double>
        /// Speed in m/s: drawn once per ride, then changed by a random walk (σ 0.3 m/s per second) within the range.
        public var speed: ClosedRange<Double>
        /// Whether fixes report an accuracy (then equal to ``noiseSigma``, as a phone reports its own estimate).
        public var reportsAccuracy: Bool
        /// The first fix's time, seconds since the Unix epoch.
        public var startTime: Double
        /// Standard deviation (m/s, per axis: north and east) of the noise on the velocity a fix reports, or `nil` for
        /// fixes without speed and course. A phone measures its velocity from the signal's Doppler shift, independently
        /// of the position (whose noise here is white, so the velocity's is too): the fix reports the noisy velocity's
        /// length as its speed and its direction as its course, so the course is good to about atan(noise / speed) —
        /// 0.5 m/s gives 4–7° at 4–7 m/s. Phones under open sky reach 0.1–0.3 m/s; 0.5 allows for streets.
        public var velocityNoise: Double?

        /// Settings; by default σ 10 m, one fix a second, 4–7 m/s, accuracy reported, speed and course with 0.5 m/s
        /// of velocity noise.
        public init(noiseSigma: Double = 10, interval: ClosedRange<Double> = 1...1, speed: ClosedRange<Double> = 4...7,
                    reportsAccuracy: Bool = true, startTime: Double = 1_767_225_600, velocityNoise: Double? = 0.5) {
            self.noiseSigma = noiseSigma
            self.interval = interval
            self.speed = speed
            self.reportsAccuracy = reportsAccuracy
            self.startTime = startTime
            self.velocityNoise = velocityNoise
        }
    }

    /// A simulated ride: its fixes, the route ridden and the truth's node sequence.
    public struct Ride: Sendable, Hashable {
        public var observations: [MatchObservation]
        public var route: RoadRoute
        /// The route's OSM nodes in travel order.
        public var truth: [Int64] { route.nodeIDs }
    }

    /// A simulator on `router`.
    public init(router: RoadRouter) {
        self.router = router
    }

    /// The ride along the best route from `origin` to `destination`; `nil` when there is no route.
    public func ride(from origin: RoadPoint, to destination: RoadPoint, settings: Settings = Settings(), seed: UInt64) -> Ride? {
        guard let result = try? router.route(RouteRequest(origin: origin, destination: destination)),
              let route = result.routes.first else { return nil }
        return ride(along: route, settings: settings, seed: seed)
    }

    /// The ride along `route`.
    public func ride(along route: RoadRoute, settings: Settings = Settings(), seed: UInt64) -> Ride {
        var random = SplitMixRandom(seed: seed)
        // The velocity's noise has its own stream, so a ride's positions do not depend on whether it reports one.
        var velocityRandom = SplitMixRandom(seed: seed ^ 0x5EED_0F_C0_0125E)
        let path = route.geometry
        guard !path.isEmpty else { return Ride(observations: [], route: route) }
        var cumulative = [0.0]
        for k in path.indices.dropFirst() {
            cumulative.append(cumulative[k - 1] + RoadGraphBuilder.distance((path[k - 1].latitude, path[k - 1].longitude),
                                                                            (path[k].latitude, path[k].longitude)))
        }
        let total = cumulative.last ?? 0
        var speed = Double.random(in: settings.speed, using: &random)
        var (time, travelled) = (settings.startTime, 0.0)
        var observations: [MatchObservation] = []
        while true {
            observations.append(fix(at: travelled, path: path, cumulative: cumulative, time: time, speed: speed, settings: settings,
                                    random: &random, velocityRandom: &velocityRandom))
            if travelled >= total { break }
            let interval = Double.random(in: settings.interval, using: &random)
            for second in stride(from: 0.0, to: interval, by: 1) {
                travelled += speed * min(1, interval - second)
                speed = min(max(speed + 0.3 * random.gaussian(), settings.speed.lowerBound), settings.speed.upperBound)
            }
            travelled = min(travelled, total)
            time += interval
        }
        return Ride(observations: observations, route: route)
    }

    /// The noisy fix of the position `travelled` metres along `path`.
    private func fix(at travelled: Double, path: [RoadPoint], cumulative: [Double], time: Double, speed: Double, settings: Settings,
                     random: inout SplitMixRandom, velocityRandom: inout SplitMixRandom) -> MatchObservation {
        var k = 0
        while k < path.count - 2 && cumulative[k + 1] < travelled { k += 1 }
        let span = path.count > 1 ? cumulative[k + 1] - cumulative[k] : 0
        let t = span > 0 ? min(max((travelled - cumulative[k]) / span, 0), 1) : 0
        let b = path.count > 1 ? path[k + 1] : path[k]
        let latitude = path[k].latitude + (b.latitude - path[k].latitude) * t
        let longitude = path[k].longitude + (b.longitude - path[k].longitude) * t
        let metresPerDegree = 6_371_008.8 * .pi / 180
        let north = settings.noiseSigma * random.gaussian(), east = settings.noiseSigma * random.gaussian()
        var observation = MatchObservation(time: time, latitude: latitude + north / metresPerDegree,
                                           longitude: longitude + east / (metresPerDegree * cos(latitude * .pi / 180)),
                                           accuracy: settings.reportsAccuracy ? settings.noiseSigma : nil)
        if let noise = settings.velocityNoise {
            // The true velocity runs along the segment ridden (a shape point's segment at its very end: the rider turns there).
            let direction = atan2((b.longitude - path[k].longitude) * cos(latitude * .pi / 180), b.latitude - path[k].latitude)
            let moving = path.count > 1 && span > 0 && travelled < (cumulative.last ?? 0) ? speed : 0
            let vNorth = moving * cos(direction) + noise * velocityRandom.gaussian()
            let vEast = moving * sin(direction) + noise * velocityRandom.gaussian()
            var course = atan2(vEast, vNorth) * 180 / .pi
            if course < 0 { course += 360 }
            observation.speed = (vNorth * vNorth + vEast * vEast).squareRoot()
            observation.course = course
        }
        return observation
    }
}

/// SplitMix64 with Gaussian draws (Box–Muller): the simulator's seeded randomness.
struct SplitMixRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal draw.
    mutating func gaussian() -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &self), v = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
