import Foundation
import Geo
import RecordTripAnalysis

/// A deterministic random source (SplitMix64) so every synthetic ride is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A normally distributed value (Box–Muller).
    mutating func gaussian(sigma: Double) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// A ride whose truth is known: a rider moves along `path` (lat/lng vertices) at `speed(t)` m/s, sampled every
/// `interval` s, pausing at the stops listed, with altitude `altitude(d)` of the distance ridden. Positions are placed
/// by linear interpolation between the vertices (equirectangular within a segment, exact enough for street-length
/// segments); the truth is what the rider did, before any noise is added.
struct SyntheticRide: Sendable {
    var path: [(latitude: Double, longitude: Double)]
    var start = 1_790_000_000.0
    var interval = 1.0
    /// Ride time in seconds excluding stops.
    var speed: @Sendable (Double) -> Double = { _ in 6 }
    /// (at ride second, for seconds) pauses.
    var stops: [(at: Double, seconds: Double)] = []
    var altitude: (@Sendable (Double) -> Double)? = nil
    var accuracy: Double? = 5

    struct Truth {
        var fixes: [GPSFix]
        var distanceM: Double
        var movingS: Double
        var elapsedS: Double
        var maxSpeedMps: Double
    }

    /// The noise-free fixes until the end of the path, and what they truly are.
    func ride() -> Truth {
        let cumulative = Self.cumulativeLengths(path)
        let total = cumulative.last ?? 0
        var fixes: [GPSFix] = []
        var distance = 0.0, clock = 0.0, moving = 0.0, maxSpeed = 0.0
        var pending = stops.sorted { $0.at < $1.at }
        while true {
            let point = Self.position(along: distance, path: path, cumulative: cumulative)
            fixes.append(GPSFix(time: start + clock, latitude: point.latitude, longitude: point.longitude,
                                altitude: altitude?(distance), accuracy: accuracy))
            if distance >= total { break }
            if let stop = pending.first, moving >= stop.at {
                pending.removeFirst()
                let steps = (stop.seconds / interval).rounded()
                for _ in 0..<Int(steps) {
                    clock += interval
                    fixes.append(GPSFix(time: start + clock, latitude: point.latitude, longitude: point.longitude,
                                        altitude: altitude?(distance), accuracy: accuracy))
                }
            }
            let v = speed(moving)
            maxSpeed = max(maxSpeed, v)
            let step = min(v * interval, total - distance)
            distance += step
            moving += interval
            clock += interval
        }
        return Truth(fixes: fixes, distanceM: total, movingS: moving, elapsedS: clock, maxSpeedMps: maxSpeed)
    }

    static func cumulativeLengths(_ path: [(latitude: Double, longitude: Double)]) -> [Double] {
        var lengths = [0.0]
        for index in path.indices.dropFirst() {
            lengths.append(lengths[index - 1] + metres(path[index - 1], path[index]))
        }
        return lengths
    }

    static func metres(_ a: (latitude: Double, longitude: Double), _ b: (latitude: Double, longitude: Double)) -> Double {
        guard let from = try? Coordinate(latitude: a.latitude, longitude: a.longitude),
              let to = try? Coordinate(latitude: b.latitude, longitude: b.longitude) else { return 0 }
        return from.distance(to: to)
    }

    static func position(along distance: Double, path: [(latitude: Double, longitude: Double)],
                         cumulative: [Double]) -> (latitude: Double, longitude: Double) {
        guard let last = path.last else { return (0, 0) }
        guard let upper = cumulative.firstIndex(where: { $0 >= distance }), upper > 0 else {
            return distance <= 0 ? path[0] : last
        }
        let span = cumulative[upper] - cumulative[upper - 1]
        let t = span > 0 ? (distance - cumulative[upper - 1]) / span : 0
        let a = path[upper - 1], b = path[upper]
        return (a.latitude + (b.latitude - a.latitude) * t, a.longitude + (b.longitude - a.longitude) * t)
    }

    /// A straight-ish test path: `count` vertices `spacing` metres apart heading east-north-east from Krems, with a
    /// gentle bend so that it is not one great circle.
    static func krems(vertices count: Int = 60, spacing: Double = 150) -> [(latitude: Double, longitude: Double)] {
        let perDegreeLatitude = 111_195.0, perDegreeLongitude = 111_195.0 * cos(48.41 * .pi / 180)
        var x = 0.0, y = 0.0
        return (0..<count).map { index in
            if index > 0 {
                let heading = 0.3 + 0.8 * sin(Double(index) / 9)
                x += spacing * cos(heading)
                y += spacing * sin(heading)
            }
            return (48.41 + y / perDegreeLatitude, 15.60 + x / perDegreeLongitude)
        }
    }
}

extension Array where Element == GPSFix {
    /// The fixes moved by Gaussian noise of `sigma` metres per axis (and `altitudeSigma` on altitudes).
    func withNoise(sigma: Double, altitudeSigma: Double = 0, seed: UInt64) -> [GPSFix] {
        var random = SeededGenerator(seed: seed)
        return map { fix in
            var noisy = fix
            noisy.latitude += random.gaussian(sigma: sigma) / 111_195
            noisy.longitude += random.gaussian(sigma: sigma) / (111_195 * cos(fix.latitude * .pi / 180))
            if let altitude = fix.altitude { noisy.altitude = altitude + random.gaussian(sigma: altitudeSigma) }
            return noisy
        }
    }
}
