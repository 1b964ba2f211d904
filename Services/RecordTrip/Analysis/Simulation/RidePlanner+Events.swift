/// Obstacles, road texture and phone shifts, scheduled while cruising.
extension RidePlanner {
    /// Seconds kept clear between an obstacle, a phone shift and a change of phase.
    static let clearance = 3.0

    mutating func scheduleEvents(time: Double, script: inout RideScript, index: Int, random: inout SeededRandom) {
        if distance >= nextTexture {
            if speed > 1 { script.signatures.append(.texture(at: time, speed: speed, using: &random)) }
            nextTexture = distance + random.exponential(mean: 50)
        }
        if let until = roughUntil, distance >= until {
            endRough(at: time, script: &script)
            nextObstacle = gap(using: &random)
        }
        guard case let .cruising(until) = phase, roughUntil == nil, speed >= 3,
              time - cruiseStart >= Self.clearance, until - time >= 2 * Self.clearance,
              time - lastEvent > Self.clearance else { return }
        if time >= nextShift {
            if settings.confounders.contains(.phoneShift) { shiftPhone(at: time, script: &script, random: &random) }
            nextShift = time + random.exponential(mean: 3_600 / max(settings.phoneShiftsPerHour, 1e-9))
            return
        }
        guard distance >= nextObstacle, nextShift - time > Self.clearance else { return }
        placeObstacle(at: time, script: &script, index: index, random: &random)
    }

    /// The phone turns 15–60° about a random axis over 0.6–1.5 s.
    mutating func shiftPhone(at time: Double, script: inout RideScript, random: inout SeededRandom) {
        let axis = (random.gaussian(), random.gaussian(), random.gaussian())
        orientation = orientation.then(PhoneOrientation(axis: axis, degrees: random.uniform(15...60)))
        script.turns.append(RideScript.Turn(start: time, duration: random.uniform(0.6...1.5), to: orientation))
        script.confounders.append(SimulatedConfounder(kind: .phoneShift, time: time))
        lastEvent = time + 1.5
    }

    mutating func placeObstacle(at time: Double, script: inout RideScript, index: Int, random: inout SeededRandom) {
        let pick = random.uniform(0...1) * obstaclesPerMetre * 1_000
        let position = script.position(index)
        var truth = SimulatedObstacle(kind: .pothole, time: time, start: time, end: time, latitude: position.latitude,
                                      longitude: position.longitude, speed: speed)
        if pick < settings.potholesPerKm {
            let signature = RideSignature.pothole(at: time, speed: speed, using: &random)
            truth.end = time + signature.echoDelay + signature.length
            script.signatures.append(signature)
            nextObstacle = gap(using: &random)
        } else if pick < settings.potholesPerKm + settings.bumpsPerKm {
            let signature = RideSignature.bump(at: time, speed: speed, using: &random)
            (truth.kind, truth.end) = (.bump, time + signature.echoDelay + signature.length)
            script.signatures.append(signature)
            nextObstacle = gap(using: &random)
        } else {
            truth.kind = .roughSurface
            roughUntil = distance + random.uniform(30...120)
            roughFactor = random.uniform(4...7)
            nextObstacle = .infinity
        }
        script.obstacles.append(truth)
        lastEvent = truth.end
    }

    /// The open rough stretch ends at `time`: its truth gets its end, and its time and position become the middle's.
    mutating func endRough(at time: Double, script: inout RideScript) {
        roughUntil = nil
        lastEvent = time
        guard let last = script.obstacles.indices.last, script.obstacles[last].kind == .roughSurface else { return }
        let middle = (script.obstacles[last].start + time) / 2
        let position = script.position(script.index(at: middle))
        script.obstacles[last].end = time
        script.obstacles[last].time = middle
        script.obstacles[last].latitude = position.latitude
        script.obstacles[last].longitude = position.longitude
    }
}
