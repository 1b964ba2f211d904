import Foundation

/// The simulator's state machine: cruise (speed drifting between targets) → brake → stop (phone maybe handled) →
/// crawl (maybe over a kerb) → accelerate → cruise; obstacles, texture hits and phone shifts scheduled by distance
/// and time while cruising, never within a few seconds of each other.
struct RidePlanner {
    let settings: RideSimulator.Settings
    var phase: RideScript.Phase
    var speed = 0.0
    var target: Double
    var retarget: Double
    var heading: Double
    var turnRate = 0.0
    var returnAt = 0.0
    var cruiseStart: Double
    var orientation: PhoneOrientation
    var nextObstacle: Double
    var nextTexture: Double
    var nextShift: Double
    var lastEvent = -Double.infinity
    var roughUntil: Double?
    var roughFactor = 1.0
    var distance = 0.0
    var north = 0.0
    var east = 0.0

    init(settings: RideSimulator.Settings, orientation: PhoneOrientation, random: inout SeededRandom) {
        self.settings = settings
        self.orientation = orientation
        target = random.uniform(settings.cruiseSpeed)
        retarget = settings.startTime + random.uniform(20...60)
        heading = random.uniform(0...(2 * .pi))
        cruiseStart = settings.startTime
        phase = .accelerating(rate: random.uniform(0.5...1.0))
        nextObstacle = 0
        nextTexture = random.exponential(mean: 50)
        nextShift = settings.startTime + random.exponential(mean: 3_600 / max(settings.phoneShiftsPerHour, 1e-9))
        nextObstacle = gap(using: &random)
    }

    var obstaclesPerMetre: Double {
        (settings.potholesPerKm + settings.bumpsPerKm + settings.roughStretchesPerKm) / 1_000
    }

    /// Metres to the next obstacle from here: at least 60, exponential with the configured rate.
    func gap(using random: inout SeededRandom) -> Double {
        guard obstaclesPerMetre > 0 else { return .infinity }
        return distance + max(60, random.exponential(mean: 1 / obstaclesPerMetre))
    }

    /// One sample of motion, then the events due at it.
    mutating func advance(to time: Double, script: inout RideScript, index: Int, random: inout SeededRandom) {
        let step = script.step
        updatePhase(time: time, script: &script, random: &random)
        if time >= returnAt {
            turnRate = random.uniform(-0.04...0.04)
            returnAt = time + random.uniform(5...20)
        }
        heading += turnRate * step
        distance += speed * step
        north += speed * cos(heading) * step
        east += speed * sin(heading) * step
        script.times.append(time)
        script.speed.append(speed)
        script.heading.append(heading)
        script.distance.append(distance)
        script.north.append(north)
        script.east.append(east)
        script.roughness.append(roughUntil == nil ? 1 : roughFactor)
        if roughUntil == nil { script.smoothDistance += speed * step }
        scheduleEvents(time: time, script: &script, index: index, random: &random)
    }

    /// Closes a rough stretch still open at the end of the ride.
    mutating func finish(script: inout RideScript) {
        if roughUntil != nil, let last = script.times.last { endRough(at: last, script: &script) }
    }
}
