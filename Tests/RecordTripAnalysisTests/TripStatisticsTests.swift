import Foundation
import RecordTripAnalysis
import Testing

/// The statistics against what the synthetic rider truly did (SyntheticRide: a known path, speeds, stops and altitude
/// profile), before any peer is consulted.
@Suite struct TripStatisticsTests {
    static func stats(_ fixes: [GPSFix]) -> TripStatistics {
        TripStatisticsCalculator.compute(CleanedTrack(fixes: fixes, dropped: CleaningCounts()))
    }

    /// Flat, a 40 m hill, then a 25 m wave up, down below the start and back: gain 90 m, loss 90 m.
    static func hills(_ distance: Double) -> Double {
        switch distance {
        case ..<1_000: 200
        case ..<2_000: 200 + 40 * (distance - 1_000) / 1_000
        case ..<3_000: 240 - 40 * (distance - 2_000) / 1_000
        case ..<4_000: 200 + 25 * sin((distance - 3_000) / 1_000 * .pi)
        case ..<5_000: 200 + 25 * sin((distance - 3_000) / 1_000 * .pi)
        default: 200
        }
    }

    static let ride = SyntheticRide(path: SyntheticRide.krems(vertices: 60), speed: { 5 + 2 * sin($0 / 120) },
                                    stops: [(300, 120), (900, 45)], altitude: hills)

    @Test("an empty track has zero figures and no start, end or box")
    func empty() {
        #expect(Self.stats([]) == TripStatistics())
    }

    @Test("a single fix has its position as start, end and box, and nothing else")
    func single() {
        let fix = GPSFix(time: 1_790_000_000, latitude: 48.41, longitude: 15.6, altitude: 200)
        let stats = Self.stats([fix])
        #expect(stats.distanceM == 0 && stats.movingS == 0 && stats.elevationGainM == 0)
        #expect(stats.start == fix && stats.end == fix)
        #expect(stats.boundingBox == [48.41, 15.6, 48.41, 15.6])
    }

    @Test("distance, elapsed and moving time, speeds and climbing of a noise-free ride match the truth")
    func noiseFree() throws {
        let truth = Self.ride.ride()
        let stats = Self.stats(truth.fixes)
        #expect(abs(stats.distanceM - truth.distanceM) / truth.distanceM < 0.002)
        #expect(stats.elapsedS == truth.elapsedS)
        #expect(abs(stats.movingS - truth.movingS) <= 1)
        #expect(abs(stats.averageSpeedMps - truth.distanceM / truth.movingS) < 0.05)
        #expect(abs(stats.maxSpeedMps - truth.maxSpeedMps) < 0.1)
        #expect(abs(stats.elevationGainM - 90) < 3)
        #expect(abs(stats.elevationLossM - 90) < 3)
        let box = try #require(stats.boundingBox)
        #expect(box[0] == truth.fixes.map(\.latitude).min() && box[2] == truth.fixes.map(\.latitude).max())
        #expect(box[1] == truth.fixes.map(\.longitude).min() && box[3] == truth.fixes.map(\.longitude).max())
        #expect(stats.start == truth.fixes.first && stats.end == truth.fixes.last)
    }

    @Test("one GPS spike does not become the max speed")
    func spike() {
        var fixes = Self.ride.ride().fixes
        fixes[200].latitude += 200 / 111_195.0  // 200 m off for one second: 200 m/s out and back
        let stats = Self.stats(fixes)
        #expect(stats.maxSpeedMps < 7.1)
    }

    @Test("position noise of σ 5 m moves the max speed by less than 1.5 m/s")
    func positionNoise() {
        let truth = Self.ride.ride()
        let stats = Self.stats(truth.fixes.withNoise(sigma: 5, seed: 23))
        #expect(abs(stats.maxSpeedMps - truth.maxSpeedMps) < 1.5, "\(stats.maxSpeedMps) vs \(truth.maxSpeedMps)")
    }

    @Test("altitude noise of σ 2 m adds less than 10 % to the climb")
    func altitudeNoise() {
        let fixes = Self.ride.ride().fixes.withNoise(sigma: 0, altitudeSigma: 2, seed: 7)
        let stats = Self.stats(fixes)
        #expect(abs(stats.elevationGainM - 90) < 9)
        #expect(abs(stats.elevationLossM - 90) < 9)
    }

    @Test("a ride without altitudes has no climbing")
    func noAltitudes() {
        var ride = Self.ride
        ride.altitude = nil
        let stats = Self.stats(ride.ride().fixes)
        #expect(stats.elevationGainM == 0 && stats.elevationLossM == 0)
        #expect(stats.distanceM > 0)
    }

    @Test("times that do not increase add distance but no time and no infinite speed")
    func sameTimes() {
        let a = GPSFix(time: 1_790_000_000, latitude: 48.41, longitude: 15.6)
        var b = a
        b.latitude += 0.001
        let stats = Self.stats([a, b])
        #expect(stats.distanceM > 100 && stats.movingS == 0 && stats.maxSpeedMps == 0 && stats.averageSpeedMps == 0)
    }

    @Test("statistics of a 1-hour ride at 1 Hz take well under a millisecond per ride (median of 50, debug build: < 20 ms)")
    func speed() {
        let truth = SyntheticRide(path: SyntheticRide.krems(vertices: 200, spacing: 120)).ride()
        let track = CleanedTrack(fixes: Array(truth.fixes.prefix(3_600)), dropped: CleaningCounts())
        #expect(track.fixes.count == 3_600)
        let clock = ContinuousClock()
        var times: [Duration] = []
        for _ in 0..<50 { times.append(clock.measure { _ = TripStatisticsCalculator.compute(track) }) }
        #expect(times.sorted()[25] < .milliseconds(20))
    }
}
