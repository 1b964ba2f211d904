import Foundation

/// What the phone records of the scripted ride: the accelerometer in its own frame and the location fixes.
extension RideScript {
    static let g = 9.81

    /// World-frame vertical acceleration (m/s², up positive) at every sample: road vibration (white noise low-passed at
    /// 25 Hz, RMS `smoothVibration` × speed / 5 m/s × the surface's factor), pedalling at the cadence, and the
    /// signatures averaged over the sensor's interval (a phone's accelerometer filters before it samples, so a 30 ms
    /// shock recorded at 20 Hz is smeared into its sample, not skipped; with ``RideSimulator/Settings/sensorRate``
    /// the interval is the faster sensor's and the samples between are dropped).
    func verticalAcceleration(using random: inout SeededRandom) -> [Double] {
        let cutoff = min(25, 0.4 * settings.sampleRate)
        let alpha = 1 - exp(-2 * .pi * cutoff * step)
        let gain = ((2 - alpha) / alpha).squareRoot()
        let cadence = random.uniform(1.1...1.5)
        var vertical = [Double](repeating: 0, count: times.count)
        var state = 0.0
        let averaging = settings.sensorRate.map { 1 / max($0, settings.sampleRate, 1) } ?? step
        for index in times.indices {
            let sigma = settings.smoothVibration * speed[index] / 5 * roughness[index] + 0.02
            state += alpha * (random.gaussian(sigma: sigma * gain) - state)
            let pedalling = speed[index] > 1.5 ? 0.3 * sin(2 * .pi * cadence * (times[index] - times[0])) : 0
            vertical[index] = state + pedalling
        }
        for signature in signatures {
            let first = index(at: signature.start)
            let last = index(at: signature.start + signature.echoDelay + signature.length)
            guard first <= last else { continue }
            for index in first...last {
                vertical[index] += signature.sampled(at: times[index], interval: averaging)
            }
        }
        return vertical
    }

    /// The accelerometer samples: the world-frame specific force (gravity, braking and accelerating along the heading,
    /// the vertical acceleration) turned into the phone's frame by its orientation at the time, plus the shakes,
    /// the phone's own bias (±0.1 m/s²) and gain (±3 %), and sensor noise (0.05 m/s²).
    func sensorSamples(using random: inout SeededRandom) -> [AccelerationSample] {
        let vertical = verticalAcceleration(using: &random)
        let bias = (random.uniform(-0.1...0.1), random.uniform(-0.1...0.1), random.uniform(-0.1...0.1))
        let gain = random.uniform(0.97...1.03)
        var orientation = OrientationCursor(initial: initialOrientation, turns: turns)
        var shakeIndex = 0
        var samples: [AccelerationSample] = []
        samples.reserveCapacity(times.count)
        for index in times.indices {
            let time = times[index]
            let longitudinal = index > 0 ? (speed[index] - speed[index - 1]) / step : 0
            let world = (longitudinal * sin(heading[index]), longitudinal * cos(heading[index]), Self.g + vertical[index])
            var phone = orientation.at(time).phoneFrame(world)
            while shakeIndex < shakes.count, shakes[shakeIndex].end < time { shakeIndex += 1 }
            if shakeIndex < shakes.count, shakes[shakeIndex].start <= time {
                let shake = shakes[shakeIndex], phase = 2 * .pi * (time - shake.start)
                phone.x += shake.amplitude.0 * sin(phase * shake.frequency.0)
                phone.y += shake.amplitude.1 * sin(phase * shake.frequency.1)
                phone.z += shake.amplitude.2 * sin(phase * shake.frequency.2)
            }
            samples.append(AccelerationSample(
                time: time,
                x: gain * phone.x + bias.0 + random.gaussian(sigma: 0.05),
                y: gain * phone.y + bias.1 + random.gaussian(sigma: 0.05),
                z: gain * phone.z + bias.2 + random.gaussian(sigma: 0.05)))
        }
        return samples
    }

    /// One fix every `fixInterval` seconds: the true position plus a slowly wandering error (AR(1), 3 m RMS per axis),
    /// the speed plus 0.15 m/s noise (0–0.3 m/s of jitter when standing), the heading as course, accuracy 3–6 m.
    func fixes(using random: inout SeededRandom) -> [GPSFix] {
        let every = max(1, Int((settings.fixInterval / step).rounded()))
        let keep = 0.95, sigma = 3.0
        var error = (0.0, 0.0)
        return stride(from: 0, to: times.count, by: every).map { index in
            error.0 = keep * error.0 + random.gaussian(sigma: sigma * (1 - keep * keep).squareRoot())
            error.1 = keep * error.1 + random.gaussian(sigma: sigma * (1 - keep * keep).squareRoot())
            let truth = position(index)
            let metresPerDegree = 111_195.0
            let latitude = truth.latitude + error.0 / metresPerDegree
            let longitude = truth.longitude + error.1 / (metresPerDegree * cos(truth.latitude * .pi / 180))
            let measured = speed[index] > 0.2 ? max(0, speed[index] + random.gaussian(sigma: 0.15))
                : random.uniform(0...0.3)
            var course = heading[index] * 180 / .pi
            course -= 360 * (course / 360).rounded(.down)
            return GPSFix(time: times[index], latitude: latitude, longitude: longitude, altitude: 200,
                          accuracy: random.uniform(3...6), speed: measured, course: course)
        }
    }
}

/// The phone's orientation over time: the turns applied in order, each eased (smoothstep) from the orientation before
/// it. Samples must be asked for in time order.
struct OrientationCursor {
    var current: PhoneOrientation
    var from: PhoneOrientation
    let turns: [RideScript.Turn]
    var next = 0

    init(initial: PhoneOrientation, turns: [RideScript.Turn]) {
        current = initial
        from = initial
        self.turns = turns.sorted { $0.start < $1.start }
    }

    mutating func at(_ time: Double) -> PhoneOrientation {
        while next < turns.count, time >= turns[next].start {
            let turn = turns[next]
            let progress = min(1, (time - turn.start) / turn.duration)
            let eased = progress * progress * (3 - 2 * progress)
            current = from.slerp(to: turn.to, eased)
            guard progress >= 1 else { return current }
            from = turn.to
            current = turn.to
            next += 1
        }
        return current
    }
}
