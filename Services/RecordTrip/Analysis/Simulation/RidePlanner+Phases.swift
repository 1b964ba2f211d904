/// The speed profile and the stops' confounders.
extension RidePlanner {
    /// Whether stops brake and set off hard (the braking confounder).
    var hardStops: Bool { settings.confounders.contains(.braking) }

    /// One sample of the speed profile.
    mutating func updatePhase(time: Double, script: inout RideScript, random: inout SeededRandom) {
        let step = script.step
        switch phase {
        case let .cruising(until):
            cruise(time: time, until: until, script: &script, random: &random)
        case let .braking(rate):
            speed -= rate * step
            if speed <= 0 {
                speed = 0
                phase = .stopped(until: stop(at: time, script: &script, random: &random))
            }
        case let .stopped(until):
            guard time >= until else { break }
            if settings.confounders.contains(.kerb), random.chance(0.6) {
                let crawl = random.uniform(1.0...1.8)
                phase = .crawling(until: time + 6, speed: crawl)
                script.signatures.append(.kerb(at: time + 3.5, speed: crawl, using: &random))
                script.confounders.append(SimulatedConfounder(kind: .kerb, time: time + 3.5))
            } else {
                phase = accelerating(time: time, script: &script, random: &random)
            }
        case let .crawling(until, crawl):
            speed += max(-0.8 * step, min(0.8 * step, crawl - speed))
            if time >= until { phase = accelerating(time: time, script: &script, random: &random) }
        case let .accelerating(rate):
            speed += rate * step
            if speed >= target {
                speed = target
                cruiseStart = time
                retarget = time + random.uniform(20...60)
                phase = .cruising(until: time + random.uniform(settings.stopEvery))
            }
        }
    }

    /// Cruising: the speed drifts to a target re-drawn every 20–60 s; at `until` the rider brakes for a stop (not in
    /// the middle of a rough stretch or right after an obstacle).
    mutating func cruise(time: Double, until: Double, script: inout RideScript, random: inout SeededRandom) {
        if time >= retarget {
            target = random.uniform(settings.cruiseSpeed)
            retarget = time + random.uniform(20...60)
        }
        speed += max(-0.3 * script.step, min(0.3 * script.step, target - speed))
        guard time >= until, roughUntil == nil, time - lastEvent > 3 else { return }
        phase = .braking(rate: hardStops ? random.uniform(2.0...3.5) : random.uniform(0.6...1.0))
        if hardStops { script.confounders.append(SimulatedConfounder(kind: .braking, time: time)) }
    }

    /// A stop beginning at `time`: 8–30 s, the phone maybe taken out and handled (turned to a new random orientation
    /// over 0.5–1 s, shaken at 3–8 Hz and 3–10 m/s² per axis for 2–5 s, put back in yet another orientation).
    /// Returns when the rider sets off.
    mutating func stop(at time: Double, script: inout RideScript, random: inout SeededRandom) -> Double {
        var until = time + random.uniform(8...30)
        guard settings.confounders.contains(.handling), random.chance(0.6) else { return until }
        let start = time + 2
        let end = start + random.uniform(2...5)
        script.confounders.append(SimulatedConfounder(kind: .handling, time: start))
        let held = PhoneOrientation.random(using: &random)
        script.turns.append(RideScript.Turn(start: start, duration: random.uniform(0.5...1.0), to: held))
        script.shakes.append(RideScript.Shake(
            start: start, end: end,
            amplitude: (random.uniform(3...10), random.uniform(3...10), random.uniform(3...10)),
            frequency: (random.uniform(3...8), random.uniform(3...8), random.uniform(3...8))))
        orientation = PhoneOrientation.random(using: &random)
        script.turns.append(RideScript.Turn(start: end, duration: random.uniform(0.5...1.0), to: orientation))
        until = max(until, end + 2)
        return until
    }

    /// Setting off: hard (1.5–2.5 m/s²) with the braking confounder, else gentle (0.5–1 m/s²).
    mutating func accelerating(time: Double, script: inout RideScript, random: inout SeededRandom) -> RideScript.Phase {
        target = random.uniform(settings.cruiseSpeed)
        return .accelerating(rate: hardStops ? random.uniform(1.5...2.5) : random.uniform(0.5...1.0))
    }
}
