import Foundation
import Geo
import ServiceTesting

/// A ride along a line, as a phone records it: one fix a second at a steady speed and 50 Hz accelerometer samples
/// (gravity on the phone's z axis, white noise on each axis) with potholes at known places. Synthetic, so its ground
/// truth is known by construction: where each pothole is, how far and how long the ride went.
///
/// A pothole's signature is the record-trip simulator's shape (`docs/record-trip.md`, "The synthetic rides"): the front
/// wheel drops (−0.6 g half-sine over 0.1 s: a 0.5 m hole at 5 m/s), hits the far edge (+2 g half-sine, 40 ms), the
/// frame rings (12 Hz, decaying over 60 ms), and the rear wheel repeats it at 60 % after the wheelbase (1.05 m). Each
/// sample is the mean of the signal over its interval (a phone's sensor filters before it samples).
struct RecordedRide {
    struct Fix {
        var time: Double
        var coordinate: Coordinate
        var altitude: Double
    }

    struct Sample {
        var time: Double
        var x: Double
        var y: Double
        var z: Double
    }

    let fixes: [Fix]
    let acceleration: [Sample]
    /// Where the potholes are.
    let potholes: [Coordinate]
    let speed: Double
    /// The line's length, metres.
    let length: Double

    static let sampleRate = 50.0

    /// Rides `line` at `speed` m/s from `start` (seconds since 1970), potholes at the fractions `potholesAt` of its length.
    init(along line: [Coordinate], start: Double, speed: Double = 5, potholesAt: [Double], seed: UInt64) {
        let points = RouteWalk.points(along: line, every: speed)
        let length = Polyline(line).length
        self.speed = speed
        self.length = length
        fixes = points.enumerated().map { index, point in Fix(time: start + Double(index), coordinate: point, altitude: 200 + Double(index) * 0.05) }
        let duration = Double(points.count - 1)
        let holeTimes = potholesAt.map { $0 * length / speed }
        potholes = holeTimes.map { points[min(Int($0.rounded()), points.count - 1)] }
        var random = SeededGenerator(seed: seed)
        var samples: [Sample] = []
        let interval = 1 / Self.sampleRate
        for index in 0..<Int(duration * Self.sampleRate) {
            let t = Double(index) * interval
            let shock = (0..<9).map { k in Self.vertical(at: t + interval * ((Double(k) + 0.5) / 9 - 0.5), holes: holeTimes, speed: speed) }
                .reduce(0, +) / 9
            samples.append(Sample(time: start + t, x: Self.gaussian(&random) * 0.2, y: Self.gaussian(&random) * 0.2,
                                  z: 9.81 + shock + Self.gaussian(&random) * 0.3))
        }
        acceleration = samples
    }

    /// The chunk bodies (`POST /v1/trips/{id}/samples`) of `seconds` of the ride each.
    func chunks(seconds: Int) -> [[String: Any]] {
        stride(from: 0, to: fixes.count, by: seconds).enumerated().map { sequence, first in
            let slice = fixes[first..<min(first + seconds, fixes.count)]
            let (from, to) = (slice.first!.time, first + seconds < fixes.count ? fixes[first + seconds].time : .infinity)
            return [
                "sequence": sequence,
                "fixes": slice.map { ["time": $0.time, "lat": $0.coordinate.latitude, "lng": $0.coordinate.longitude,
                                      "altitude": $0.altitude, "accuracy": 5, "speed": speed] as [String: Any] },
                "acceleration": acceleration.filter { $0.time >= from && $0.time < to }.map { ["time": $0.time, "x": $0.x, "y": $0.y, "z": $0.z] },
            ]
        }
    }

    /// The vertical shock at `t` seconds into the ride: each hole's front and rear wheel.
    static func vertical(at t: Double, holes: [Double], speed: Double) -> Double {
        holes.reduce(0) { sum, hole in sum + pothole(t - hole) + 0.6 * pothole(t - hole - 1.05 / speed) }
    }

    static func pothole(_ tau: Double) -> Double {
        let g = 9.81
        guard tau >= 0 else { return 0 }
        if tau < 0.1 { return -0.6 * g * sin(.pi * tau / 0.1) }
        let rebound = tau - 0.1
        if rebound < 0.04 { return 2.0 * g * sin(.pi * rebound / 0.04) }
        let ring = rebound - 0.04
        return ring < 0.3 ? 0.5 * g * exp(-ring / 0.06) * sin(2 * .pi * 12 * ring) : 0
    }

    static func gaussian(_ random: inout SeededGenerator) -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &random), v = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
