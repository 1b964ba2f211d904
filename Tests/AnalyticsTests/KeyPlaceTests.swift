@testable import Analytics
import Foundation
import Testing

@Suite("Writes in key order: KeyPlace sorts a part's rows as the tables' primary keys are ordered")
struct KeyPlaceTests {
    @Test("rows whose ids differ in their first 8 bytes come out in (guide, day, tour) byte order; ties keep first-seen order")
    func keyOrder() {
        var random = SystemRandomNumberGenerator()
        let guides = (0..<40).map { _ in UUID().uuidString.lowercased() }
        let tours = (0..<40).map { _ in UUID().uuidString.lowercased() }
        var keys: [DayRowKey] = []
        for _ in 0..<2_000 {
            keys.append(DayRowKey(guide: guides.randomElement(using: &random)!, day: Int64.random(in: 20_000...20_010, using: &random),
                                  tour: tours.randomElement(using: &random)!, detail: "viewer-\(keys.count)"))
        }
        let ordered = KeyPlace.order(keys).map { keys[$0] }
        let expected = keys.enumerated().sorted { lhs, rhs in
            let (a, b) = (lhs.element, rhs.element)
            if a.guide != b.guide { return Array(a.guide.utf8).lexicographicallyPrecedes(Array(b.guide.utf8)) }
            if a.day != b.day { return a.day < b.day }
            if a.tour != b.tour { return Array(a.tour.utf8).lexicographicallyPrecedes(Array(b.tour.utf8)) }
            return lhs.offset < rhs.offset
        }.map(\.element)
        #expect(ordered == expected)
        #expect(Set(KeyPlace.order(keys)).count == keys.count, "a permutation: every row written once")
    }

    @Test("prefixes compare as their bytes do, short texts padded with zero bytes")
    func prefixes() {
        #expect(KeyPlace.prefix("") == 0)
        #expect(KeyPlace.prefix("a") < KeyPlace.prefix("a0"))
        #expect(KeyPlace.prefix("0123456789") == KeyPlace.prefix("01234567"))
        #expect(KeyPlace.prefix("f0000000") > KeyPlace.prefix("e9999999"))
        #expect(KeyPlace.sorted(["c1", "a9", "b0"]) == ["a9", "b0", "c1"])
    }
}
