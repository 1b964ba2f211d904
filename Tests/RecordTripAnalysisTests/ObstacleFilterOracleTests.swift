@testable import RecordTripAnalysis
import Testing

/// The chain's linear-time filters against brute-force oracles on irregular, duplicated sample times.
@Suite struct ObstacleFilterOracleTests {
    /// 2,000 times with random gaps of 0–30 ms (some zero: duplicated times) and random values.
    static func irregular(seed: UInt64) -> (times: [Double], values: [Double]) {
        var random = SeededRandom(seed: seed)
        var time = 0.0
        var times: [Double] = []
        var values: [Double] = []
        for _ in 0..<2_000 {
            time += random.chance(0.05) ? 0 : random.uniform(0...0.03)
            times.append(time)
            values.append(random.gaussian(sigma: 3) + 9.81)
        }
        return (times, values)
    }

    @Test("the centred mean equals the plain mean over each sample's window", arguments: [0.03, 0.5, 1.0])
    func centredMeanMatchesBruteForce(width: Double) {
        let (times, values) = Self.irregular(seed: 11)
        let fast = CentredMean.of(values, times: times, width: width)
        for index in times.indices {
            let window = times.indices.filter { abs(times[$0] - times[index]) <= width / 2 }
            let mean = window.reduce(0) { $0 + values[$1] } / Double(window.count)
            #expect(abs(fast[index] - mean) < 1e-9)
        }
    }

    @Test("the rolling median equals the sorted middle of each window, NaN blocks skipped")
    func rollingMedianMatchesBruteForce() {
        var random = SeededRandom(seed: 12)
        let values = (0..<300).map { _ in random.chance(0.1) ? Double.nan : random.uniform(0...5) }
        let fast = RoughnessBlocks.rollingMedian(values, width: 11)
        for index in values.indices {
            let window = values[max(0, index - 5)...min(values.count - 1, index + 5)].filter(\.isFinite).sorted()
            #expect(fast[index] == (window.isEmpty ? 0 : window[window.count / 2]))
        }
    }

    @Test("the rotation guard's dilation marks exactly the samples within the margin of a marked one")
    func dilationMatchesBruteForce() {
        let (times, values) = Self.irregular(seed: 13)
        let marks = values.map { $0 > 17 }
        let fast = VerticalAcceleration.dilate(marks, times: times, by: 0.2)
        for index in times.indices {
            let near = times.indices.contains { marks[$0] && abs(times[$0] - times[index]) <= 0.2 }
            #expect(fast[index] == near)
        }
    }

    @Test("gravity's direction follows a turned phone: the vertical of a still phone is 0 in any orientation")
    func gravityDirectionInAnyOrientation() {
        var random = SeededRandom(seed: 14)
        for _ in 0..<5 {
            let phone = PhoneOrientation.random(using: &random)
            let reading = phone.phoneFrame((0, 0, 9.81))
            let samples = (0..<300).map { AccelerationSample(time: Double($0) * 0.01, x: reading.x, y: reading.y,
                                                             z: reading.z) }
            let vertical = VerticalAcceleration(samples: samples, settings: .standard)
            #expect(vertical.filtered.allSatisfy { abs($0) < 1e-9 })
            #expect(!vertical.rotating.contains(true))
        }
    }

    @Test("a phone turning at 90°/s trips the rotation guard; one turning at 10°/s does not", arguments: [90.0, 10.0])
    func rotationGuardTrips(degreesPerSecond: Double) {
        let samples = (0..<400).map { index in
            let turned = PhoneOrientation(axis: (1, 0, 0), degrees: degreesPerSecond * Double(index) * 0.01)
            let reading = turned.phoneFrame((0, 0, 9.81))
            return AccelerationSample(time: Double(index) * 0.01, x: reading.x, y: reading.y, z: reading.z)
        }
        let vertical = VerticalAcceleration(samples: samples, settings: .standard)
        #expect(vertical.rotating[200] == (degreesPerSecond > ObstacleDetectorSettings.standard.rotationGuardRate))
    }
}
