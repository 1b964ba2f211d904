import Contracts
import Foundation
import Testing

@Suite("RFC 3339 timestamps and civil dates: one reader for dates and for microseconds")
struct RFC3339TimestampTests {
    private func micros(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        return RFC3339Timestamp.microsecondsSince1970(bytes, 0..<bytes.count)
    }

    @Test("the microsecond reader agrees with the date reader, offsets applied, fractions rounded half up past six digits")
    func microsecondsAgreeWithDates() throws {
        #expect(micros("1970-01-01T00:00:00Z") == 0)
        #expect(micros("2026-02-10T09:00:00.123456Z") == 1_770_714_000_123_456)
        #expect(micros("2026-02-10T10:00:00.123456+01:00") == 1_770_714_000_123_456)
        #expect(micros("2026-02-10t09:00:00.1234565z") == 1_770_714_000_123_457)
        #expect(micros("2026-02-10T09:00:00.123456499Z") == 1_770_714_000_123_456)
        #expect(micros("1969-12-31T23:59:59.5Z") == -500_000)
        #expect(micros("0001-01-01T00:00:00Z") == -62_135_596_800_000_000)
        #expect(micros("9999-12-31T23:59:59.999999Z") == 253_402_300_799_999_999)
        for text in ["2026-02-10T09:00:00.1Z", "2000-02-29T12:34:56.000789-05:30", "1901-07-04T03:00:00.999999+14:00"] {
            let date = try #require(RFC3339Timestamp.date(from: text))
            let expected = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
            #expect(try #require(micros(text)) == expected, "\(text)")
        }
    }

    @Test("both readers refuse what is not an RFC 3339 date-time", arguments: [
        "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-02-10T24:00:00Z", "2026-02-10 09:00:00Z", "2026-02-10T09:00:00",
        "2026-02-10T09:00:00.Z", "2026-02-10T09:00:00.1234567891Z", "2026-02-10T09:00:00+1:00", "2026-02-10T09:00:00Zx", "",
    ])
    func refusals(text: String) {
        #expect(micros(text) == nil)
        #expect(RFC3339Timestamp.date(from: text) == nil)
    }

    @Test("civil dates round-trip through days since 1970, leap years included")
    func civilDates() {
        #expect(CivilDate.daysSinceEpoch(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilDate.daysSinceEpoch(year: 1969, month: 12, day: 31) == -1)
        #expect(CivilDate.daysSinceEpoch(year: 2000, month: 3, day: 1) == 11_017)
        for days in stride(from: -719_162, through: 2_932_896, by: 997) {
            let (year, month, day) = CivilDate.civil(fromDaysSinceEpoch: days)
            #expect(CivilDate.daysSinceEpoch(year: year, month: month, day: day) == days)
        }
        #expect(CivilDate.daysIn(month: 2, year: 2000) == 29 && CivilDate.daysIn(month: 2, year: 1900) == 28)
        #expect(CivilDate.floorDivide(-1, 7) == -1 && CivilDate.floorModulo(-1, 7) == 6)
    }
}
