import Foundation
@testable import Contracts
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Strict JSON cursor: numbers read as strtod reads them")
struct StrictJSONNumberTests {
    /// The cursor's number for `text`, and `strtod`'s.
    private func both(_ text: String) -> (cursor: Double?, strtod: Double) {
        let cursor = Array(text.utf8).withUnsafeBufferPointer { bytes -> Double? in
            var cursor = StrictJSONCursor(bytes: bytes)
            return cursor.number()
        }
        return (cursor, strtod(text, nil))
    }

    @Test("coordinates, accelerations, speeds, integers, exponents and edge cases: the same double, bit for bit")
    func sameDoubles() {
        var texts = ["0", "-0", "0.0", "1", "-1", "48.409724", "15.610579", "-0.123456789", "9.80665", "1e22", "1e23", "1e-22",
                     "1e-23", "9007199254740992", "9007199254740993", "12345678901234567", "0.1", "0.2", "0.30000000000000004",
                     "123.456e-5", "1E+2", "-2.5E-3", "0.000001", "4.35", "179.9999999", "-89.99999999", "1.7976931348623157e308",
                     "2.2250738585072014e-308", "5e-324", "100000000000000000000000", "3.14159265358979323846"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let degrees = Double.random(in: -180...180, using: &generator)
            texts.append(String(format: "%.\(Int.random(in: 0...9, using: &generator))f", degrees))
            texts.append(String(format: "%.\(Int.random(in: 1...17, using: &generator))g", Double.random(in: -50...50, using: &generator)))
            texts.append(String(format: "%.6e", Double.random(in: -1e10...1e10, using: &generator)))
            texts.append(String(Int.random(in: -1_000_000_000...1_000_000_000, using: &generator)))
        }
        for text in texts where !text.contains("inf") && !text.contains("nan") {
            let (cursor, reference) = both(text)
            guard reference.isFinite, reference == 0 || reference.magnitude >= .leastNormalMagnitude else { continue }
            #expect(cursor?.bitPattern == reference.bitPattern, "\(text): \(String(describing: cursor)) vs strtod \(reference)")
        }
    }

    @Test("the exact path declines what it cannot do exactly, and strtod takes it")
    func declines() {
        let take = { (text: String) in Array(text.utf8).withUnsafeBufferPointer { StrictJSONCursor.exactNumber($0) } }
        #expect(take("48.409724") == 48.409724)
        #expect(take("-0")?.sign == .minus)
        #expect(take("12345678901234567") == nil, "17 significant digits")
        #expect(take("1e23") == nil, "10^23 is not an exact double")
        #expect(take("1e-23") == nil)
        #expect(take("1e99999") == nil)
        #expect(take("0.00000000000000000000001") == nil, "exponent -23")
        #expect(take("9007199254740993") == nil, "above 2^53")
    }
}
