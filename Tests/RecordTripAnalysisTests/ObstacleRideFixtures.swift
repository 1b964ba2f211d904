import RecordTripAnalysis

/// Simulated rides for the obstacle tests, cached per settings (a ride takes a moment to make in a debug build).
enum ObstacleRideFixtures {
    /// Seeds the detector's constants were tuned on (1–8) are not used by the accuracy tests (101–116).
    static let accuracySeeds: ClosedRange<UInt64> = 101...116
    /// The rate scaling (``ObstacleDetectorSettings/scalesThresholdsWithRate``) was tried on seeds 1–80; the 20 and
    /// 25 Hz tests use 201–216, run once after it was settled.
    static let rateSeeds: ClosedRange<UInt64> = 201...216

    /// A 20-minute ride at `rate` Hz, everything on.
    /// `sensorRate`: the phone thins a faster sensor's stream (``RideSimulator/Settings/sensorRate``).
    static func ride(seed: UInt64, rate: Double = 100, duration: Double = 1_200,
                     sensorRate: Double? = nil) -> SimulatedRide {
        var settings = RideSimulator.Settings(seed: seed)
        settings.sampleRate = rate
        settings.sensorRate = sensorRate
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

    /// The score of the detector (the standard one unless `settings` says otherwise) over `seeds`.
    static func score(seeds: ClosedRange<UInt64>, rate: Double = 100, sensorRate: Double? = nil,
                      settings: ObstacleDetectorSettings = .standard) -> ObstacleScore {
        seeds.reduce(ObstacleScore()) { total, seed in
            let ride = ride(seed: seed, rate: rate, sensorRate: sensorRate)
            let found = ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes, settings: settings)
            return total + ObstacleScore(found, on: ride)
        }
    }
}
