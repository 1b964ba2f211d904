import RecordTripAnalysis

/// Simulated rides for the obstacle tests, cached per settings (a ride takes a moment to make in a debug build).
enum ObstacleRideFixtures {
    /// Seeds the detector's constants were tuned on (1–8) are not used by the accuracy tests (101–116).
    static let accuracySeeds: ClosedRange<UInt64> = 101...116

    /// A 20-minute ride at `rate` Hz, everything on.
    static func ride(seed: UInt64, rate: Double = 100, duration: Double = 1_200) -> SimulatedRide {
        var settings = RideSimulator.Settings(seed: seed)
        settings.sampleRate = rate
        settings.duration = duration
        return RideSimulator.simulate(settings)
    }

    /// A ride with no obstacle and only `confounder` (made frequent: a stop every 30–90 s, a phone shift a minute).
    static func confounderOnly(_ confounder: RideConfounder, seed: UInt64) -> SimulatedRide {
        var settings = RideSimulator.Settings(seed: seed).withoutObstacles()
        settings.duration = 1_200
        settings.confounders = [confounder]
        settings.stopEvery = 30...90
        settings.phoneShiftsPerHour = 60
        return RideSimulator.simulate(settings)
    }

    /// The score of the standard detector over `seeds`.
    static func score(seeds: ClosedRange<UInt64>, rate: Double = 100) -> ObstacleScore {
        seeds.reduce(ObstacleScore()) { total, seed in
            let ride = ride(seed: seed, rate: rate)
            return total + ObstacleScore(ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes),
                                         on: ride)
        }
    }
}
