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

    /// At 20 Hz a 30–50 ms rebound is smeared into one sample: short, fast potholes fall under the speed-scaled
    /// threshold. Measured recall 0.86 on these seeds (a known shortfall, docs/record-trip.md); precision holds.
    @Test("at 20 Hz precision and false candidates still meet the targets, recall stays above 0.8")
    func degradesGracefullyAt20Hz() {
        let score = ObstacleRideFixtures.score(seeds: 101...106, rate: 20)
        #expect(score.precision >= 0.9)
        #expect(score.recall >= 0.8)
        #expect(score.falsePer10km < 1)
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
