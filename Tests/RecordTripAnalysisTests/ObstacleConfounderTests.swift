import RecordTripAnalysis
import Testing

/// The orientation independence and the confounders of issue 19.6: the same ride with the phone turned gives the
/// same candidates; braking, a kerb at walking pace, a phone handled at a stop or shifting in a pocket give none.
@Suite struct ObstacleConfounderTests {
    @Test("the same ride with the phone turned by any rotation gives the same candidates", arguments: [
        PhoneOrientation(axis: (1, 0, 0), degrees: 90),
        PhoneOrientation(axis: (0, 1, 0), degrees: 180),
        PhoneOrientation(axis: (1, -2, 0.5), degrees: 137),
    ])
    func orientationIndependence(turn: PhoneOrientation) {
        let ride = ObstacleRideFixtures.ride(seed: 109)
        let upright = ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes)
        let turned = ObstacleDetector.detect(acceleration: ride.acceleration.map(turn.rotate), fixes: ride.fixes)
        #expect(upright.count >= 5)
        #expect(turned.count == upright.count)
        for (a, b) in zip(upright, turned) {
            #expect(abs(a.time - b.time) < 0.02)
            #expect(a.kind == b.kind)
            #expect(abs(a.peakMps2 - b.peakMps2) < 0.01 * a.peakMps2)
        }
    }

    @Test("each confounder alone, over three 20-minute rides, gives no candidate", arguments: RideConfounder.allCases)
    func confounderAloneGivesNothing(confounder: RideConfounder) {
        for seed in UInt64(1)...3 {
            let ride = ObstacleRideFixtures.confounderOnly(confounder, seed: seed)
            #expect(ride.confounders.contains { $0.kind == confounder })
            #expect(ride.obstacles.isEmpty)
            #expect(ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes).isEmpty)
        }
    }

    @Test("the kerb and the handled phone are real shocks: without the speed gate they become candidates",
          arguments: [RideConfounder.kerb, .handling])
    func theSpeedGateIsWhatStopsThem(confounder: RideConfounder) {
        var ungated = ObstacleDetectorSettings.standard
        ungated.minimumSpeed = 0
        let found = (UInt64(1)...3).flatMap { seed in
            let ride = ObstacleRideFixtures.confounderOnly(confounder, seed: seed)
            return ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes, settings: ungated)
        }
        #expect(!found.isEmpty)
    }
}
