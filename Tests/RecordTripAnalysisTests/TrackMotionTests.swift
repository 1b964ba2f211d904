import Foundation
import Geo
@testable import RecordTripAnalysis
import Testing

/// The pieces of the max-speed rule against brute force.
@Suite struct TrackMotionTests {
    @Test("the planar chord agrees with Geo's great-circle distance within 10⁻⁶ up to 0.05° (random chords, 60°S–70°N)")
    func chordAgainstGreatCircle() throws {
        var random = SeededGenerator(seed: 41)
        for _ in 0..<2_000 {
            let a = try Coordinate(latitude: .random(in: -60...70, using: &random), longitude: .random(in: -179...179, using: &random))
            let b = try Coordinate(latitude: a.latitude + .random(in: -0.004...0.004, using: &random),
                                   longitude: a.longitude + .random(in: -0.004...0.004, using: &random))
            let exact = a.distance(to: b)
            #expect(abs(TrackMotion.chordMetres(a, b) - exact) <= 1e-6 * exact + 1e-9)
        }
    }

    @Test("the highest rolling median equals the brute-force maximum of sorted windows", arguments: 1...10)
    func rollingMedian(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let values = (0..<Int.random(in: 1...60, using: &random)).map { _ in Double.random(in: 0...20, using: &random) }
        let width = min(5, values.count)
        let brute = (0...(values.count - width)).map { start -> Double in
            let window = values[start..<(start + width)].sorted()
            return width % 2 == 1 ? window[width / 2] : (window[width / 2 - 1] + window[width / 2]) / 2
        }.max() ?? 0
        #expect(TrackMotion.highestRollingMedian(values, count: 5) == brute)
    }
}
