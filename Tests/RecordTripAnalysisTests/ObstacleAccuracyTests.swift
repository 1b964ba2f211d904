import RecordTripAnalysis
import Testing

/// Issue 19.6's targets on simulated rides with known truth (seeds not used for tuning): precision ≥ 0.9, recall ≥ 0.9,
/// fewer than 1 false candidate per 10 km of smooth road.
@Suite struct ObstacleAccuracyTests {
    @Test("16 twenty-minute rides at 100 Hz meet the precision, recall and false-candidate targets")
    func targetsAt100Hz() {
        let score = ObstacleRideFixtures.score(seeds: ObstacleRideFixtures.accuracySeeds)
        #expect(score.obstacles >= 100)
        #expect(score.smoothMetres >= 80_000)
        #expect(score.precision >= 0.9)
        #expect(score.recall >= 0.9)
        #expect(score.falsePer10km < 1)
        #expect(score.kindAccuracy >= 0.8)
    }

    @Test("the targets hold at 50 Hz")
    func targetsAt50Hz() {
        let score = ObstacleRideFixtures.score(seeds: 101...106, rate: 50)
        #expect(score.precision >= 0.9)
        #expect(score.recall >= 0.9)
        #expect(score.falsePer10km < 1)
    }

    /// Android's `SENSOR_DELAY_GAME` and many phones' lowest hardware rates sit between 20 and 25 Hz; there a 30–50 ms
    /// rebound is averaged into one or two samples and the thresholds follow the rate (``ShockAttenuation``).
    @Test("16 twenty-minute rides at 20 Hz and at 25 Hz meet the targets (seeds not used for tuning)",
          arguments: [20.0, 25.0])
    func targetsAtLowRates(rate: Double) {
        let score = ObstacleRideFixtures.score(seeds: ObstacleRideFixtures.rateSeeds, rate: rate)
        #expect(score.obstacles >= 100)
        #expect(score.smoothMetres >= 80_000)
        #expect(score.precision >= 0.9)
        #expect(score.recall >= 0.9)
        #expect(score.falsePer10km < 1)
        #expect(score.kindAccuracy >= 0.8)
    }

    @Test("candidates lie within 15 m of the obstacle they found (GPS error 3 m RMS)")
    func candidatesArePlacedAtTheObstacle() throws {
        var checked = 0
        for seed in UInt64(107)...108 {
            let ride = ObstacleRideFixtures.ride(seed: seed)
            let found = ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes)
            for candidate in found where candidate.kind != .roughSurface {
                let truth = try #require(ride.obstacles.min {
                    abs($0.time - candidate.time) < abs($1.time - candidate.time)
                })
                let metres = ObstacleTestGeometry.metres(candidate.latitude, candidate.longitude, truth.latitude,
                                                         truth.longitude)
                #expect(metres < 15)
                checked += 1
            }
        }
        #expect(checked >= 8)
    }

    @Test("every candidate has a severity in 0…1, a positive peak and the gate's speed")
    func candidateFieldsAreSane() {
        let ride = ObstacleRideFixtures.ride(seed: 108)
        let found = ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes)
        #expect(!found.isEmpty)
        for candidate in found {
            #expect((0...1).contains(candidate.severity))
            #expect(candidate.peakMps2 > 0)
            #expect(candidate.speedMps >= ObstacleDetectorSettings.standard.minimumSpeed)
        }
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.time < $1.time })
    }
}
