import Foundation

/// A vertical acceleration waveform (world frame, m/s², up positive) the simulator adds to the road vibration:
/// an obstacle's, a kerb's or a small road-texture hit's. The rear wheel repeats the front wheel's after the
/// wheelbase (1.05 m) at a fraction of its strength.
struct RideSignature {
    enum Shape {
        /// The wheel drops into the hole (free fall, at most 1 g, for the hole's length at the speed), then hits the far
        /// edge: a short, larger rebound with a ringing of the frame (~12 Hz).
        case pothole(drop: Double, dropDuration: Double, rebound: Double, reboundDuration: Double)
        /// Riding over a (1 − cos) hump of height h and length L at speed v: a(τ) = h/2 (2πv/L)² cos(2πτ/d), d = L/v
        /// — up first, then down, then up as the wheel comes off it.
        case bump(amplitude: Double, duration: Double)
        /// A single sharp half-sine (a kerb's edge, a crack, a joint), with ringing.
        case knock(amplitude: Double, duration: Double)
    }

    var start: Double
    var shape: Shape
    /// Seconds after `start` where the rear wheel repeats the shape, and how strongly.
    var echoDelay: Double
    var echoFactor: Double

    static let g = 9.81
    static let wheelbase = 1.05
    static let ringFrequency = 12.0
    static let ringDecay = 0.06

    /// Seconds the front wheel's shape lasts (ringing included).
    var length: Double {
        switch shape {
        case let .pothole(_, dropDuration, _, reboundDuration): dropDuration + reboundDuration + 5 * Self.ringDecay
        case let .bump(_, duration): duration
        case let .knock(_, duration): duration + 5 * Self.ringDecay
        }
    }

    /// The waveform at `time` (front and rear wheel).
    func value(at time: Double) -> Double {
        front(time - start) + echoFactor * front(time - start - echoDelay)
    }

    /// The waveform averaged over the `interval` centred on `time` (9 points): the sensor's own low-pass.
    func sampled(at time: Double, interval: Double) -> Double {
        let points = 9
        var sum = 0.0
        for point in 0..<points {
            sum += value(at: time + interval * ((Double(point) + 0.5) / Double(points) - 0.5))
        }
        return sum / Double(points)
    }

    func front(_ tau: Double) -> Double {
        guard tau >= 0, tau < length else { return 0 }
        switch shape {
        case let .pothole(drop, dropDuration, rebound, reboundDuration):
            if tau < dropDuration { return -drop * sin(.pi * tau / dropDuration) }
            return Self.knock(tau - dropDuration, amplitude: rebound, duration: reboundDuration)
        case let .bump(amplitude, duration):
            return amplitude * cos(2 * .pi * tau / duration)
        case let .knock(amplitude, duration):
            return Self.knock(tau, amplitude: amplitude, duration: duration)
        }
    }

    static func knock(_ tau: Double, amplitude: Double, duration: Double) -> Double {
        if tau < duration { return amplitude * sin(.pi * tau / duration) }
        let ring = tau - duration
        return 0.3 * amplitude * exp(-ring / ringDecay) * sin(2 * .pi * ringFrequency * ring)
    }

    /// A pothole 0.25–0.6 m long ridden at `speed`: drop 0.4–0.9 g, rebound 1.0–2.5 g scaled by speed/5 m/s (0.7–1.4).
    static func pothole(at start: Double, speed: Double, using random: inout SeededRandom) -> RideSignature {
        let holeLength = random.uniform(0.25...0.6)
        let scale = min(1.4, max(0.7, speed / 5))
        let shape = Shape.pothole(drop: random.uniform(0.4...0.9) * g, dropDuration: holeLength / speed,
                                  rebound: random.uniform(1.0...2.5) * g * scale,
                                  reboundDuration: random.uniform(0.03...0.05))
        return RideSignature(start: start, shape: shape, echoDelay: wheelbase / speed, echoFactor: 0.6)
    }

    /// A hump 5–10 cm high and 0.5–1.5 m long ridden at `speed` (capped at 2.5 g).
    static func bump(at start: Double, speed: Double, using random: inout SeededRandom) -> RideSignature {
        let height = random.uniform(0.05...0.10)
        let length = random.uniform(0.5...1.5)
        let amplitude = min(2.5 * g, height / 2 * pow(2 * .pi * speed / length, 2))
        return RideSignature(start: start, shape: .bump(amplitude: amplitude, duration: length / speed),
                             echoDelay: wheelbase / speed, echoFactor: 0.6)
    }

    /// A kerb 8–12 cm high taken at walking pace: a 1.5–3 g knock from each wheel.
    static func kerb(at start: Double, speed: Double, using random: inout SeededRandom) -> RideSignature {
        let shape = Shape.knock(amplitude: random.uniform(1.5...3.0) * g, duration: random.uniform(0.03...0.05))
        return RideSignature(start: start, shape: shape, echoDelay: wheelbase / speed, echoFactor: 0.8)
    }

    /// Road texture (a joint, a crack): 0.1–0.3 g scaled by speed/5 m/s, 20 ms, either direction.
    static func texture(at start: Double, speed: Double, using random: inout SeededRandom) -> RideSignature {
        let sign: Double = random.chance(0.5) ? 1 : -1
        let shape = Shape.knock(amplitude: sign * random.uniform(0.1...0.3) * g * speed / 5, duration: 0.02)
        return RideSignature(start: start, shape: shape, echoDelay: wheelbase / speed, echoFactor: 0.6)
    }
}
