import Foundation

/// The first links of the chain: gravity's direction found from the samples themselves (no assumption about how the
/// phone is held, re-estimated as it moves), the vertical acceleration as the projection on it, a high-pass and a
/// light smoothing; and the rotation guard that marks where the phone was turning too fast to trust the projection.
struct VerticalAcceleration {
    /// Sample times, seconds (sorted, finite).
    var times: [Double]
    /// Vertical acceleration after gravity and the high-pass, m/s² (up is positive): the road's vibration.
    var highPassed: [Double]
    /// The same after the smoothing: the shocks.
    var filtered: [Double]
    /// True where the phone's orientation was changing faster than the guard allows.
    var rotating: [Bool]
    /// What the shock thresholds are multiplied by at this recording's sample rate (``ShockAttenuation``).
    var shockScale: Double

    init(samples: [AccelerationSample], settings: ObstacleDetectorSettings) {
        times = samples.map(\.time)
        let gravity = Self.gravityDirections(samples, times: times, width: settings.gravityWindow)
        var vertical = [Double](repeating: 0, count: samples.count)
        for index in samples.indices {
            let sample = samples[index]
            let up = gravity[index]
            vertical[index] = sample.x * up.x + sample.y * up.y + sample.z * up.z
        }
        let trend = CentredMean.of(vertical, times: times, width: settings.highPassWindow)
        for index in vertical.indices {
            vertical[index] -= trend[index]
        }
        highPassed = vertical
        filtered = CentredMean.of(vertical, times: times, width: settings.smoothingWindow)
        rotating = Self.rotationGuard(gravity, times: times, settings: settings)
        shockScale = ShockAttenuation.factor(times: times, settings: settings)
    }

    /// Unit vectors along the centred mean of the raw vector: the direction of gravity (plus slow accelerations) in
    /// the phone's frame at each sample; straight along z when the mean vanishes (free fall, a sensor reading zeros).
    /// One pass with a running sum per axis.
    static func gravityDirections(_ samples: [AccelerationSample], times: [Double], width: Double) -> [Vector3] {
        let count = samples.count
        let half = width / 2
        var result = [Vector3](repeating: Vector3(x: 0, y: 0, z: 1), count: count)
        var low = 0
        var high = -1
        var sum = Vector3(x: 0, y: 0, z: 0)
        for index in 0..<count {
            while high + 1 < count, times[high + 1] <= times[index] + half {
                high += 1
                sum.add(samples[high], sign: 1)
            }
            while times[low] < times[index] - half {
                sum.add(samples[low], sign: -1)
                low += 1
            }
            if let unit = sum.unit { result[index] = unit }
        }
        return result
    }

    /// True within `rotationGuardMargin` seconds of a sample where gravity's direction turned faster than
    /// `rotationGuardRate` degrees per second over the last `rotationGuardLag` seconds.
    static func rotationGuard(_ gravity: [Vector3], times: [Double], settings: ObstacleDetectorSettings) -> [Bool] {
        var fast = [Bool](repeating: false, count: gravity.count)
        // Over at least `lag` seconds, turning less than rate × lag is never too fast: most samples stop there.
        let surelySlow = cos(min(.pi, settings.rotationGuardRate * settings.rotationGuardLag * .pi / 180))
        var earlier = -1
        for index in gravity.indices {
            // The latest sample at least `lag` seconds before this one.
            while earlier + 1 < index, times[earlier + 1] <= times[index] - settings.rotationGuardLag { earlier += 1 }
            guard earlier >= 0, times[index] > times[earlier] else { continue }
            let cosine = min(1, max(-1, gravity[index].dot(gravity[earlier])))
            guard cosine < surelySlow else { continue }
            let degreesPerSecond = acos(cosine) * 180 / .pi / (times[index] - times[earlier])
            fast[index] = degreesPerSecond > settings.rotationGuardRate
        }
        return Self.dilate(fast, times: times, by: settings.rotationGuardMargin)
    }

    /// Marks every sample within `margin` seconds of a marked one (a forward and a backward pass).
    static func dilate(_ marks: [Bool], times: [Double], by margin: Double) -> [Bool] {
        var result = marks
        var last = -Double.infinity
        for index in marks.indices {
            if marks[index] { last = times[index] }
            if times[index] - last <= margin { result[index] = true }
        }
        var next = Double.infinity
        for index in marks.indices.reversed() {
            if marks[index] { next = times[index] }
            if next - times[index] <= margin { result[index] = true }
        }
        return result
    }
}

/// A 3-vector in the phone's frame, m/s² or unitless.
struct Vector3: Sendable, Hashable {
    var x: Double
    var y: Double
    var z: Double

    func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

    /// Adds (sign 1) or removes (sign −1) a sample's vector.
    mutating func add(_ sample: AccelerationSample, sign: Double) {
        x += sign * sample.x
        y += sign * sample.y
        z += sign * sample.z
    }

    /// The vector scaled to length 1; `nil` when it is (nearly) zero or not finite.
    var unit: Vector3? {
        let length = dot(self).squareRoot()
        guard length.isFinite, length > 1e-6 else { return nil }
        return Vector3(x: x / length, y: y / length, z: z / length)
    }
}
