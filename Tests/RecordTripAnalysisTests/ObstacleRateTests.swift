@testable import RecordTripAnalysis
import Foundation
import Testing

/// The rate-aware link of the obstacle chain (``ShockAttenuation``) against a brute-force oracle, what the simulator
/// records at a low rate, and the detector at 20 Hz under the other sensor model and the confounders.
@Suite struct ObstacleRateTests {
    /// The largest box-averaged sample of a unit half-sine, by Riemann sums, averaged over 256 clock phases.
    static func bruteForcePeak(shock: Double, interval: Double, box: Double) -> Double {
        let phases = 256, points = 400
        var total = 0.0
        for phase in 0..<phases {
            var largest = 0.0
            var time = Double(phase) / Double(phases) * interval - box
            while time < shock + box {
                var sum = 0.0
                for point in 0..<points {
                    let tau = time - box / 2 + box * (Double(point) + 0.5) / Double(points)
                    sum += tau >= 0 && tau < shock ? sin(.pi * tau / shock) : 0
                }
                largest = max(largest, sum / Double(points))
                time += interval
            }
            total += largest
        }
        return total / Double(phases)
    }

    @Test("the expected peak of a short shock matches a brute-force box average", arguments: [
        (0.04, 0.01, 0.03, 0.03), (0.04, 0.02, 0.03, 0.02), (0.04, 0.05, 0.03, 0.05), (0.03, 0.04, 0.03, 0.04),
        (0.05, 0.005, 0.03, 0.035),
    ])
    func peakFractionMatchesBruteForce(shock: Double, interval: Double, smoothing: Double, box: Double) {
        let fast = ShockAttenuation.peakFraction(shock: shock, interval: interval, smoothing: smoothing)
        #expect(abs(fast - Self.bruteForcePeak(shock: shock, interval: interval, box: box)) < 0.01)
    }

    @Test("the thresholds keep their set value at 100 Hz, fall to ~0.57 at 20 Hz, and a pause does not move them")
    func factorFollowsTheRate() {
        let settings = ObstacleDetectorSettings.standard
        func times(_ rate: Double, pause: Double = 0) -> [Double] {
            (0..<2_000).map { Double($0) / rate + ($0 >= 1_000 ? pause : 0) }
        }
        #expect(abs(ShockAttenuation.factor(times: times(100), settings: settings) - 1) < 1e-9)
        let at20 = ShockAttenuation.factor(times: times(20), settings: settings)
        #expect(at20 > 0.5 && at20 < 0.65)
        #expect(abs(ShockAttenuation.factor(times: times(20, pause: 60), settings: settings) - at20) < 1e-9)
        #expect(ShockAttenuation.factor(times: [5, 5, 5], settings: settings) == 1)
        var off = settings
        off.scalesThresholdsWithRate = false
        #expect(ShockAttenuation.factor(times: times(20), settings: off) == 1)
    }

    @Test("at 20 Hz the simulated sensor averages a shock over each interval: the samples keep its area")
    func simulatorAveragesOverTheInterval() {
        var random = SeededRandom(seed: 5)
        for _ in 0..<20 {
            let signature = RideSignature.pothole(at: 0.013, speed: random.uniform(3...8), using: &random)
            let span = signature.echoDelay + signature.length + 0.2
            let interval = 0.05
            let samples = stride(from: -0.1, through: span, by: interval).map {
                signature.sampled(at: $0, interval: interval)
            }
            let area = stride(from: -0.125, through: span + 0.025, by: 0.000_1).reduce(0) {
                $0 + signature.value(at: $1) * 0.000_1
            }
            let magnitude = stride(from: -0.125, through: span, by: 0.000_1).reduce(0) {
                $0 + abs(signature.value(at: $1)) * 0.000_1
            }
            #expect(abs(samples.reduce(0, +) * interval - area) < 0.02 * magnitude)
        }
    }

    @Test("at 20 Hz thinned from a 100 Hz sensor (point samples that can miss a shock) the targets still hold")
    func targetsWithAThinnedStream() {
        let score = ObstacleRideFixtures.score(seeds: ObstacleRideFixtures.rateSeeds, rate: 20, sensorRate: 100)
        #expect(score.obstacles >= 100)
        #expect(score.precision >= 0.9)
        #expect(score.recall >= 0.9)
        #expect(score.falsePer10km < 1)
    }

    @Test("without the rate scaling 20 Hz recall falls short of the target: the scaling is what meets it")
    func scalingIsWhatMeetsTheTarget() {
        var fixed = ObstacleDetectorSettings.standard
        fixed.scalesThresholdsWithRate = false
        let score = ObstacleRideFixtures.score(seeds: ObstacleRideFixtures.rateSeeds, rate: 20, settings: fixed)
        #expect(score.recall < 0.9)
    }

    @Test("at 20 Hz no confounder gives a candidate within 5 s of it (the smooth-road false rate is the targets' test)", arguments: RideConfounder.allCases)
    func confoundersAt20Hz(confounder: RideConfounder) {
        for seed in UInt64(1)...3 {
            var settings = RideSimulator.Settings(seed: seed).withoutObstacles()
            (settings.duration, settings.sampleRate, settings.confounders) = (1_200, 20, [confounder])
            (settings.stopEvery, settings.phoneShiftsPerHour) = (30...90, 60)
            let ride = RideSimulator.simulate(settings)
            #expect(ride.confounders.contains { $0.kind == confounder })
            let found = ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes)
            for candidate in found {
                #expect(!ride.confounders.contains { abs($0.time - candidate.time) < 5 })
            }
        }
    }
}
