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

        let days = floorDivide(unixSeconds, 86_400)
        let secondOfDay = unixSeconds - days * 86_400
        let (year, month, day) = civilDate(fromDaysSinceEpoch: days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
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
        var scanner = TimestampScanner(Array(text.utf8))
        guard
            let year = scanner.digits(4), scanner.skip("-"),
            let month = scanner.digits(2), scanner.skip("-"),
            let day = scanner.digits(2), scanner.skip("T") || scanner.skip("t"),
            let hour = scanner.digits(2), scanner.skip(":"),
            let minute = scanner.digits(2), scanner.skip(":"),
            let second = scanner.digits(2)
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") {
            guard let (value, count) = scanner.fractionDigits(maxCount: 9) else { return nil }
            fraction = Double(value) / pow(10, Double(count))
        }
        guard let offsetSeconds = scanner.utcOffsetSeconds(), scanner.isAtEnd else { return nil }
        guard
            (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }

        let days = daysSinceEpoch(year: year, month: month, day: day)
        let unixSeconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSinceReferenceDate: Double(unixSeconds - unixToReferenceDate) + fraction)
    }

    // MARK: Proleptic Gregorian calendar arithmetic (Howard Hinnant's days-from-civil algorithms)

    private static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(fromDaysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
