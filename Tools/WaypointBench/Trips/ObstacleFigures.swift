import Foundation
import RecordTripAnalysis

/// The obstacle half of `waypoint-bench trips` (issue 19): the detector scored on simulated rides with known truth
/// (``RideSimulator``, seeds `seed`, `seed + 1`, …: 20-minute rides at 100 Hz with every confounder), the same seeds
/// recorded at each rate of ``rates``, and the detection time of a 1-hour ride at 100 Hz (360,000 samples, 3,600
/// fixes). In the JSON line: `"obstacles": {"precision", "recall", "false_per_10km", "kind_accuracy", "rides", "km",
/// "detect_ms_1h_100hz", "by_rate": {"20": {"precision", "recall", "false_per_10km", "kind_accuracy"}, "25": …,
/// "50": …, "100": …}}` (the top-level scores are the 100 Hz ones).
struct ObstacleFigures: Encodable {
    /// The scores at one accelerometer rate.
    struct RateScore: Encodable {
        var precision: Double
        var recall: Double
        var falsePer10km: Double
        var kindAccuracy: Double

        enum CodingKeys: String, CodingKey {
            case precision, recall, falsePer10km = "false_per_10km", kindAccuracy = "kind_accuracy"
        }

        init(_ score: ObstacleScore) {
            (precision, recall) = (score.precision, score.recall)
            (falsePer10km, kindAccuracy) = (score.falsePer10km, score.kindAccuracy)
        }
    }

    /// Accelerometer rates scored, Hz: issue 19's 20–100 Hz, with Android's common 25 Hz.
    static let rates: [Double] = [20, 25, 50, 100]

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
    /// The scores per rate, keyed by the rate in Hz ("20", "25", "50", "100").
    var byRate: [String: RateScore]

    enum CodingKeys: String, CodingKey {
        case precision, recall, falsePer10km = "false_per_10km", kindAccuracy = "kind_accuracy", rides
        case kilometres = "km", detectMilliseconds = "detect_ms_1h_100hz", byRate = "by_rate"
    }

    /// Issue 19's targets, as verdicts for the bench's summary: at 100 Hz, then at every other rate.
    var verdicts: [String] {
        Self.verdicts("obstacles", precision: precision, recall: recall, falsePer10km: falsePer10km)
            + byRate.sorted { (Double($0.key) ?? 0) < (Double($1.key) ?? 0) }.filter { $0.key != "100" }.flatMap {
                Self.verdicts("obstacles at \($0.key) Hz", precision: $0.value.precision, recall: $0.value.recall,
                              falsePer10km: $0.value.falsePer10km)
            }
    }

    static func verdicts(_ name: String, precision: Double, recall: Double, falsePer10km: Double) -> [String] {
        [
            "\(name) precision \(precision) (target ≥ 0.9): \(precision >= 0.9 ? "met" : "NOT met")",
            "\(name) recall \(recall) (target ≥ 0.9): \(recall >= 0.9 ? "met" : "NOT met")",
            "\(name) false per 10 km \(falsePer10km) (target < 1): \(falsePer10km < 1 ? "met" : "NOT met")",
        ]
    }

    /// Scores `rides` simulated rides at each of ``rates`` and times the detector `timingRuns` times on one 1-hour
    /// 100 Hz ride.
    static func measure(rides: Int = 24, seed: UInt64 = 1_000, timingRuns: Int = 5) -> ObstacleFigures {
        var byRate: [String: RateScore] = [:]
        var atHundred = (score: ObstacleScore(), metres: 0.0)
        for rate in rates {
            let scored = score(rides: rides, seed: seed, rate: rate)
            byRate[String(Int(rate))] = RateScore(scored.score)
            if rate == 100 { atHundred = scored }
        }
        let score = atHundred.score
        return ObstacleFigures(precision: score.precision, recall: score.recall, falsePer10km: score.falsePer10km,
                               kindAccuracy: score.kindAccuracy, rides: max(1, rides),
                               kilometres: atHundred.metres / 1_000,
                               detectMilliseconds: detectionTime(seed: seed, runs: timingRuns), byRate: byRate)
    }

    /// The score of `rides` 20-minute rides from `seed` on, recorded at `rate` Hz, and the metres ridden.
    static func score(rides: Int, seed: UInt64, rate: Double) -> (score: ObstacleScore, metres: Double) {
        var score = ObstacleScore()
        var metres = 0.0
        for offset in 0..<UInt64(max(1, rides)) {
            var settings = RideSimulator.Settings(seed: seed + offset)
            settings.duration = 1_200
            settings.sampleRate = rate
            let ride = RideSimulator.simulate(settings)
            metres += ride.distance
            score = score + ObstacleScore(ObstacleDetector.detect(acceleration: ride.acceleration, fixes: ride.fixes),
                                          on: ride)
        }
        return (score, metres)
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
