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

    @Test("17 to 19 significant digits (phones' shortest round trip, %.17g): the same double as strtod, bit for bit, midpoints included")
    func longDigits() {
        var texts = ["9007199254740993", "9007199254740995", "18014398509481985", "4503599627370496.5", "-9007199254740993e-5",
                     "0.10000000000000001", "0.30000000000000004", "1.7976931348623157", "2.2250738585072014", "4.9406564584124654",
                     "9999999999999999999", "1000000000000000000e27", "1e-27", "0.000000000000000000000000001", "123456789012345678e-27",
                     "7.450580596923828125e18", "1.00000000000000011102230246251565404236316680908203125"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = Double.random(in: -20...20, using: &generator) * pow(10, Double(Int.random(in: -12...12, using: &generator)))
            texts.append(String(format: "%.\(Int.random(in: 16...18, using: &generator))g", value))
            texts.append("\(value)")
            let digits = (0..<Int.random(in: 17...19, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            texts.append("\(Int.random(in: 1...9, using: &generator))\(digits.dropFirst())e\(Int.random(in: -45...9, using: &generator))")
            // Exactly halfway between two doubles (2^53 + an odd number, times a power of two that keeps it an integer).
            texts.append(String(UInt64(1) << 53 + UInt64(Int.random(in: 0...(1 << 20), using: &generator)) * 2 + 1))
        }
        for text in texts {
            let (cursor, reference) = both(text)
            guard reference.isFinite, reference == 0 || reference.magnitude >= .leastNormalMagnitude else { continue }
            #expect(cursor?.bitPattern == reference.bitPattern, "\(text): \(String(describing: cursor)) vs strtod \(reference)")
        }
        let extended = { (text: String) in Array(text.utf8).withUnsafeBufferPointer { StrictJSONCursor.extendedNumber($0) } }
        #if arch(x86_64)
        #expect(extended("48.409724123456789") == 48.409724123456789)
        #expect(extended("-0.0012345678901234567") == -0.0012345678901234567)
        #expect(extended("12345678901234567") == nil, "odd above 2^53: halfway between two doubles")
        #expect(extended("0.10000000000000001") == 0.1)
        #expect(extended("9007199254740993") == nil, "2^53 + 1: halfway between two doubles, left to strtod")
        #expect(extended("12345678901234567890") == nil, "20 digits")
        // Decimals near a midpoint between two doubles whose extended quotient lands exactly on it (found with numpy's
        // 80-bit long double and Python's exact fractions): rounding that to a double could go the wrong way, so the
        // extended path declines them all and strtod decides.
        let ontoMidpoints = ["6.229054658727530841e+4", "1.132148325934978202e+8", "5.437654216273380303e+0", "4.081569734639642691e-2",
                             "9.163462083548339433e+5", "9.723375663136395667e-7", "9.601274989464975845e-2", "3.136582312212763124e-1",
                             "9.665646466740723117e+5", "3.013660871784548317e-7", "5.95982990755196397e+3", "6.603179032657163134e+3",
                             "8.18519889466324389e+8", "4.812235740530014863e-2", "8.4488244057923590e-7", "5.490704552917213645e+6",
                             "6.237167939469243083e-1", "9.296560230443251878e+7", "7.756052586688483969e-4", "3.399661270305783279e-5"]
        for text in ontoMidpoints {
            #expect(extended(text) == nil, "\(text)")
            let (cursor, reference) = both(text)
            #expect(cursor?.bitPattern == reference.bitPattern, "\(text)")
        }
        #expect(extended("1e28") == nil && extended("1e-28") == nil, "10^28 is not exact in extended precision")
        #endif
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
