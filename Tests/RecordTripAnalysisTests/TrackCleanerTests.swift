import Foundation
import RecordTripAnalysis
import Testing

/// The cleaner on rides whose clean fixes are known (SyntheticRide): whatever is injected must come out, counted under
/// its rule, and nothing else may.
@Suite struct TrackCleanerTests {
    static let ride = SyntheticRide(path: SyntheticRide.krems(vertices: 20)).ride().fixes

    @Test("a clean ride keeps every fix")
    func cleanRide() {
        let cleaned = TrackCleaner.clean(Self.ride)
        #expect(cleaned.fixes == Self.ride)
        #expect(cleaned.dropped == CleaningCounts())
    }

    @Test("an empty trip is an empty track with nothing dropped")
    func emptyTrip() {
        let cleaned = TrackCleaner.clean([])
        #expect(cleaned.fixes.isEmpty)
        #expect(cleaned.dropped.total == 0)
    }

    @Test("NaN, infinity, out-of-range positions, a zero clock and a negative accuracy are invalid")
    func invalidValues() {
        var fixes = Self.ride
        let template = fixes[10]
        var bad: [GPSFix] = []
        for change in [{ (f: inout GPSFix) in f.latitude = .nan }, { $0.longitude = .infinity }, { $0.latitude = 91 },
                       { $0.longitude = -180.5 }, { $0.time = .nan }, { $0.time = 0 }, { $0.altitude = .nan },
                       { $0.speed = -1 }, { $0.accuracy = -1 }, { $0.course = .infinity }] as [(inout GPSFix) -> Void] {
            var fix = template
            fix.time += 0.5
            change(&fix)
            bad.append(fix)
        }
        fixes.insert(contentsOf: bad, at: 11)
        let cleaned = TrackCleaner.clean(fixes)
        #expect(cleaned.fixes == Self.ride)
        #expect(cleaned.dropped.invalid == bad.count)
        #expect(cleaned.dropped.total == bad.count)
    }

    @Test("accuracy 0 and unknown are kept, worse than 50 m is poor")
    func accuracy() {
        var fixes = Self.ride
        fixes[3].accuracy = 0
        fixes[4].accuracy = nil
        fixes[5].accuracy = 50
        fixes[6].accuracy = 50.1
        fixes[7].accuracy = 400
        let cleaned = TrackCleaner.clean(fixes)
        #expect(cleaned.dropped.poorAccuracy == 2)
        #expect(cleaned.dropped.total == 2)
        #expect(cleaned.fixes.count == fixes.count - 2)
        #expect(!cleaned.fixes.contains(fixes[6]) && !cleaned.fixes.contains(fixes[7]))
    }

    @Test("a fix at the time of a kept fix is a duplicate, whatever its position")
    func duplicates() {
        var fixes = Self.ride
        fixes.insert(fixes[8], at: 9)
        var moved = fixes[20]
        moved.latitude += 0.00001
        fixes.insert(moved, at: 21)
        let cleaned = TrackCleaner.clean(fixes)
        #expect(cleaned.fixes == Self.ride)
        #expect(cleaned.dropped.duplicate == 2)
        #expect(cleaned.dropped.total == 2)
    }

    @Test("a fix earlier than the one before it is dropped, not sorted in")
    func outOfOrder() {
        var fixes = Self.ride
        fixes.swapAt(30, 31)
        let cleaned = TrackCleaner.clean(fixes)
        #expect(cleaned.dropped.outOfOrder == 1)
        #expect(cleaned.dropped.total == 1)
        #expect(cleaned.fixes == Self.ride.filter { $0 != Self.ride[30] })
    }

    @Test("a 5,000 km jump in the middle drops that fix only")
    func lonelyJump() {
        var fixes = Self.ride
        fixes[40].latitude -= 45  // ≈ 5,000 km south
        let cleaned = TrackCleaner.clean(fixes)
        #expect(cleaned.dropped.impossibleJump == 1)
        #expect(cleaned.dropped.total == 1)
        #expect(cleaned.fixes == Self.ride.filter { $0 != Self.ride[40] })
    }

    @Test("an outlier as the very first fix is dropped once the ride confirms itself")
    func firstFixOutlier() {
        var fixes = Self.ride
        fixes[0].longitude += 1  // 74 km east, one second before the second fix
        let cleaned = TrackCleaner.clean(fixes)
        #expect(cleaned.fixes == Array(Self.ride.dropFirst()))
        #expect(cleaned.dropped.impossibleJump == 1)
        #expect(cleaned.dropped.total == 1)
    }

    @Test("a fix from the future (a clock glitch) does not make the rest of the ride out of order")
    func futureFix() {
        var fixes = Self.ride
        fixes[50].time += 86_400
        let cleaned = TrackCleaner.clean(fixes)
        #expect(cleaned.fixes == Self.ride.filter { $0 != Self.ride[50] })
        #expect(cleaned.dropped.outOfOrder == 1)
        #expect(cleaned.dropped.total == 1)
    }

    @Test("a real relocation (recording paused, then 50 km away) keeps both parts")
    func relocation() {
        let first = Array(Self.ride.prefix(60))
        let later = Self.ride.dropFirst(60).map { fix -> GPSFix in
            var moved = fix
            moved.latitude += 0.45  // 50 km north, ten minutes later: 83 m/s, impossible in one step
            moved.time += 600
            return moved
        }
        let cleaned = TrackCleaner.clean(first + later)
        #expect(cleaned.fixes == first + later)
        #expect(cleaned.dropped.total == 0)
    }

    @Test("isolated outliers injected at random are exactly what is dropped", arguments: 1...20)
    func randomOutliers(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var fixes = Self.ride
        var injected = 0
        var index = Int.random(in: 1...4, using: &random)
        while index < fixes.count - 1 {
            let kilometres = Double.random(in: 1...6_000, using: &random)
            fixes[index].latitude = max(-89, min(89, fixes[index].latitude + kilometres / 111.195 * (Bool.random(using: &random) ? 1 : -1)))
            injected += 1
            index += Int.random(in: 4...25, using: &random)
        }
        let cleaned = TrackCleaner.clean(fixes)
        #expect(cleaned.dropped.impossibleJump == injected)
        #expect(cleaned.dropped.total == injected)
        #expect(Set(cleaned.fixes).isSubset(of: Set(Self.ride)))
        #expect(cleaned.fixes.count == Self.ride.count - injected)
    }

    @Test("cleaning is linear: 200,000 fixes of alternating good and bad values in a few seconds even in a debug build")
    func linear() {
        let many = (0..<200_000).map { index -> GPSFix in
            let offset: Double = index % 2 == 0 ? 0 : Double(index % 7) * 10
            return GPSFix(time: 1_790_000_000 + Double(index / 2), latitude: 48.41 + offset, longitude: 15.6, accuracy: 5)
        }
        let clock = ContinuousClock()
        let elapsed = clock.measure { _ = TrackCleaner.clean(many) }
        // A quadratic cleaner would take hours on 200,000 fixes; a linear one well under a second. The bound is loose
        // because test machines are shared and starve a process for seconds.
        #expect(elapsed < .seconds(60))
    }
}
