import Foundation
import RecordTripAnalysis

/// `stats_ms` of `waypoint-bench trips`: the time ``TripStatisticsCalculator/compute(_:rules:)`` takes for a 1-hour
/// ride at 1 Hz (3,600 fixes), already cleaned.
enum TripStatsFigures {
    /// p50 and p99 over `runs` computations (after a few warm-up runs), in milliseconds to the microsecond.
    static func measure(runs: Int = 1_000) -> Latencies {
        let track = CleanedTrack(fixes: hourRide(), dropped: CleaningCounts())
        var latencies = Latencies(resolution: 0.001)
        let clock = ContinuousClock()
        var checksum = 0.0
        for run in 0..<(runs + 20) {
            let started = clock.now
            checksum += TripStatisticsCalculator.compute(track).distanceM
            if run >= 20 { latencies.record(clock.now - started) }
        }
        precondition(checksum > 0, "the ride has a length")  // keeps the optimiser from dropping the work
        return latencies
    }

    /// A ride near Krems: 3,600 fixes 1 s apart heading east-north-east at 4–8 m/s with two 2-minute stops, altitude
    /// rolling ±30 m, and a metre of deterministic jitter so that no two steps are alike.
    static func hourRide() -> [GPSFix] {
        let metresPerDegreeLatitude = 111_195.0
        let metresPerDegreeLongitude = metresPerDegreeLatitude * cos(48.41 * .pi / 180)
        var x = 0.0, y = 0.0
        return (0..<3_600).map { second in
            let stopped = (900..<1_020).contains(second) || (2_400..<2_520).contains(second)
            let speed = stopped ? 0 : 6 + 2 * sin(Double(second) / 97)
            let heading = 0.4 + 0.6 * sin(Double(second) / 311)
            x += speed * cos(heading)
            y += speed * sin(heading)
            let jitter = sin(Double(second) * 12.9898) * 0.5
            return GPSFix(time: 1_790_000_000 + Double(second), latitude: 48.41 + (y + jitter) / metresPerDegreeLatitude,
                          longitude: 15.60 + (x - jitter) / metresPerDegreeLongitude,
                          altitude: 200 + 30 * sin(Double(second) / 400), accuracy: 5)
        }
    }
}
