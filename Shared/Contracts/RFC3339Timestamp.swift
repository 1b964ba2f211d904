import Foundation

/// The one timestamp format of the published language and the HTTP APIs: RFC 3339 in UTC,
/// e.g. `2026-11-22T10:00:00Z` or `2026-11-22T10:00:00.123Z`.
///
/// Written with a `Z` suffix and fractional seconds only when the instant has them: three
/// digits for whole milliseconds, six otherwise. The resolution is one microsecond, the
/// same as PostgreSQL's `timestamptz`, so a timestamp read back from either store encodes
/// identically. Read tolerantly: any number of fractional digits (up to nine), `Z` or a
/// numeric offset (`+02:00`), and a lower-case `t` or `z`.
public enum RFC3339Timestamp {
    /// Seconds from 1970-01-01 to 2001-01-01, Foundation's reference date.
    private static let unixToReferenceDate: Int64 = 978_307_200
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in Unix seconds: the years RFC 3339 can write.
    private static let representableUnixSeconds: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// The RFC 3339 UTC text of `date`, rounded to the microsecond; `nil` when the date
    /// lies outside the years 0001–9999 or is not finite.
    public static func string(from date: Date) -> String? {
        let sinceReference = date.timeIntervalSinceReferenceDate
        guard sinceReference.isFinite else { return nil }
        // Split in Foundation's own reference frame so no extra rounding step is introduced.
        var wholeSeconds = sinceReference.rounded(.down)
        var micros = Int64(((sinceReference - wholeSeconds) * 1_000_000).rounded())
        if micros == 1_000_000 {
            wholeSeconds += 1
            micros = 0
        }
        guard abs(wholeSeconds) < 1e12 else { return nil }
        let unixSeconds = Int64(wholeSeconds) + unixToReferenceDate
        guard representableUnixSeconds.contains(unixSeconds) else { return nil }

        let days = Int64(CivilDate.floorDivide(Int(unixSeconds), 86_400))
        let secondOfDay = unixSeconds - days * 86_400
        let (year, month, day) = CivilDate.civil(fromDaysSinceEpoch: Int(days))
        var text = pad(Int64(year), 4) + "-" + pad(Int64(month), 2) + "-" + pad(Int64(day), 2)
        text += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay % 3600 / 60, 2)
        text += ":" + pad(secondOfDay % 60, 2)
        if micros % 1000 == 0, micros > 0 {
            text += "." + pad(micros / 1000, 3)
        } else if micros > 0 {
            text += "." + pad(micros, 6)
        }
        return text + "Z"
    }

    /// The instant written by `text`, or `nil` when it is not an RFC 3339 date-time.
    public static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard let parsed = parse(bytes, 0..<bytes.count) else { return nil }
        let fraction = parsed.fractionDigits == 0 ? 0.0 : Double(parsed.fraction) / pow(10, Double(parsed.fractionDigits))
        return Date(timeIntervalSinceReferenceDate: Double(parsed.unixSeconds - unixToReferenceDate) + fraction)
    }

    /// The instant written by `bytes[range]` (the text between a JSON string's quotes, say) as microseconds since
    /// 1970, the stores' resolution: more fractional digits are rounded half up. `nil` when it is not an RFC 3339
    /// date-time. Reads straight from the bytes, for readers that parse one timestamp per event (analytics' ingest).
    public static func microsecondsSince1970(_ bytes: [UInt8], _ range: Range<Int>) -> Int64? {
        guard let parsed = parse(bytes, range) else { return nil }
        var micros = parsed.fraction
        var digits = parsed.fractionDigits
        while digits < 6 {
            micros *= 10
            digits += 1
        }
        var roundUp = false
        while digits > 6 {
            roundUp = micros % 10 >= 5
            micros /= 10
            digits -= 1
        }
        return parsed.unixSeconds * 1_000_000 + micros + (roundUp ? 1 : 0)
    }

    /// An RFC 3339 date-time's fields: the whole seconds since 1970 in UTC (the offset applied) and the fractional
    /// digits as written.
    struct Parsed {
        var unixSeconds: Int64
        /// The fractional digits' value (`123` for `.123`).
        var fraction: Int64
        /// How many fractional digits there were (0–9).
        var fractionDigits: Int
    }

    /// The one RFC 3339 reader: `YYYY-MM-DD`, `T` or `t`, `HH:MM:SS`, optional `.` and 1–9 digits, `Z`, `z` or
    /// `±HH:MM` — nothing before or after, and a real calendar date and time of day.
    static func parse(_ bytes: [UInt8], _ range: Range<Int>) -> Parsed? {
        var index = range.lowerBound
        func digits(_ count: Int) -> Int? {
            guard index + count <= range.upperBound else { return nil }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                index += 1
            }
            return value
        }
        func skip(_ characters: UInt8...) -> Bool {
            guard index < range.upperBound, characters.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), skip(UInt8(ascii: "-")), let month = digits(2), skip(UInt8(ascii: "-")), let day = digits(2),
              skip(UInt8(ascii: "T"), UInt8(ascii: "t")), let hour = digits(2), skip(UInt8(ascii: ":")), let minute = digits(2),
              skip(UInt8(ascii: ":")), let second = digits(2),
              (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction: Int64 = 0
        var count = 0
        if skip(UInt8(ascii: ".")) {
            while index < range.upperBound, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                guard count < 9 else { return nil }
                fraction = fraction * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
        }
        var offset = 0
        if skip(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            offset = 0
        } else if index < range.upperBound, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), skip(UInt8(ascii: ":")), let minutes = digits(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == range.upperBound else { return nil }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        return Parsed(unixSeconds: Int64(days * 86_400 + hour * 3600 + minute * 60 + second - offset), fraction: fraction, fractionDigits: count)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
