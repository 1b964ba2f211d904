import Contracts
import Foundation
import Testing

@Suite("CurrencyCode")
struct CurrencyCodeTests {
    @Test(
        "an active code carries the exponent of its minor unit",
        arguments: [("EUR", 2), ("USD", 2), ("JPY", 0), ("KRW", 0), ("BHD", 3), ("KWD", 3), ("CLF", 4), ("XCG", 2), ("ZWG", 2)]
    )
    func exponent(code: String, exponent: Int) throws {
        let currency = try #require(CurrencyCode(code))
        #expect(currency.code == code)
        #expect(currency.minorUnitExponent == exponent)
    }

    @Test(
        "a code that is not active or has no minor unit is rejected",
        arguments: ["eur", "Eur", "EURO", "EU", "", "ABC", "HRK", "BGN", "ANG", "SLL", "ZWL", "XAU", "XTS", "XXX"]
    )
    func rejected(code: String) {
        #expect(CurrencyCode(code) == nil)
    }

    @Test("the table holds the ISO 4217 List One codes that have a minor unit, sorted")
    func allActive() {
        let codes = CurrencyCode.allActive.map(\.code)
        #expect(codes.count == 165)
        #expect(codes == codes.sorted())
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { $0.count == 3 && $0.allSatisfy(\.isUppercase) })
    }

    @Test("minor units per major unit follow the exponent")
    func minorUnitsPerMajorUnit() {
        #expect(CurrencyCode.jpy.minorUnitsPerMajorUnit == 1)
        #expect(CurrencyCode.eur.minorUnitsPerMajorUnit == 100)
        #expect(CurrencyCode("BHD")?.minorUnitsPerMajorUnit == 1000)
    }

    @Test("the named constants agree with the table")
    func constants() {
        for constant in [CurrencyCode.eur, .usd, .gbp, .chf, .jpy] {
            #expect(CurrencyCode(constant.code) == constant)
        }
    }

    @Test("encodes as a bare string and decoding rejects unknown codes")
    func json() throws {
        #expect(String(decoding: try ContractJSON.encode([CurrencyCode.eur]), as: UTF8.self) == #"["EUR"]"#)
        #expect(try ContractJSON.decode([CurrencyCode].self, from: Data(#"["BHD"]"#.utf8)) == [CurrencyCode("BHD")!])
        #expect(throws: DecodingError.self) {
            try ContractJSON.decode([CurrencyCode].self, from: Data(#"["XYZ"]"#.utf8))
        }
    }
}
