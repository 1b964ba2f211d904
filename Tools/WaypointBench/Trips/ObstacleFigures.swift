import Foundation
import RecordTripAnalysis

/// The obstacle half of `waypoint-bench trips` (issue 19): the detector scored on simulated rides with known truth
/// (``RideSimulator``, seeds `seed`, `seed + 1`, …: 20-minute rides at 100 Hz with every confounder) and the detection
/// time of a 1-hour ride at 100 Hz (360,000 samples, 3,600 fixes). In the JSON line:
/// `"obstacles": {"precision", "recall", "false_per_10km", "kind_accuracy", "rides", "km", "detect_ms_1h_100hz"}`.
struct ObstacleFigures: Encodable {
    var precision: Double
    var recall: Double
    /// False candidates per 10 km of smooth road.
    var falsePer10km: Double
    /// Found obstacles whose type guess was right.
    var kindAccuracy: Double
    var rides: Int
    /// Kilometres ridden over all rides.
    var kilometres: Double
    /// Median of the timing runs, milliseconds.
    var detectMilliseconds: Double

    enum CodingKeys: String, CodingKey {
        case precision, recall, falsePer10km = "false_per_10km", kindAccuracy = "kind_accuracy", rides
        case kilometres = "km", detectMilliseconds = "detect_ms_1h_100hz"
    }

    /// Issue 19's targets, as verdicts for the bench's summary.
    var verdicts: [String] {
        [
            "obstacles precision \(precision) (target ≥ 0.9): \(precision >= 0.9 ? "met" : "NOT met")",
            "obstacles recall \(recall) (target ≥ 0.9): \(recall >= 0.9 ? "met" : "NOT met")",
            "obstacles false per 10 km \(falsePer10km) (target < 1): \(falsePer10km < 1 ? "met" : "NOT met")",
        ]
    }

    /// Scores `rides` simulated rides and times the detector `timingRuns` times on one 1-hour 100 Hz ride.
    static func measure(rides: Int = 24, seed: UInt64 = 1_000, timingRuns: Int = 5) -> ObstacleFigures {
        var score = ObstacleScore()
        var metres = 0.0
        for offset in 0..<UInt64(max(1, rides)) {
            var settings = RideSimulator.Settings(seed: seed + offset)
            settings.duration = 1_200
            let ride = RideSimulator.simulate(settings)
            metres += ride.distance
            score = score + ObstacleScore(ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes),
                                          on: ride)
        }
        return ObstacleFigures(precision: score.precision, recall: score.recall, falsePer10km: score.falsePer10km,
                               kindAccuracy: score.kindAccuracy, rides: max(1, rides), kilometres: metres / 1_000,
                               detectMilliseconds: detectionTime(seed: seed, runs: timingRuns))
    }

    /// Median milliseconds of `ObstacleDetector.detect` on a 1-hour ride at 100 Hz.
    static func detectionTime(seed: UInt64, runs: Int) -> Double {
        var settings = RideSimulator.Settings(seed: seed)
        settings.duration = 3_600
        let ride = RideSimulator.simulate(settings)
        let clock = ContinuousClock()
        var timings: [Double] = []
        var found = 0
        for _ in 0..<max(1, runs) {
            let elapsed = clock.measure {
                found += ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes).count
            }
            timings.append(Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        withExtendedLifetime(found) {}  // the candidates are used, so the calls stay
        return timings.sorted()[timings.count / 2]
    }
}
