/// RFC 3339 / ISO 8601 timestamps as GPX files write them, to and from seconds since the Unix epoch (UTC).
///
/// Read: `YYYY-MM-DDThh:mm:ss`, an optional fraction of any length, then `Z`, `±hh:mm`, `±hhmm`, `±hh` or nothing
/// (no zone is read as UTC, which is what GPX 1.1 prescribes); `T` may be a space or lower case. Written:
/// `YYYY-MM-DDThh:mm:ssZ`, with milliseconds when the time has them.
enum GPXTime {
    /// Seconds since the epoch for `text`, or `nil` when it is not such a timestamp or a field is out of range.
    static func parse<Bytes: RandomAccessCollection<UInt8>>(_ text: Bytes) -> Double? where Bytes.Index == Int {
        var scanner = DigitScanner(bytes: text)
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
              let day = scanner.number(2), scanner.skip(anyOf: "Tt "), let hour = scanner.number(2), scanner.skip(":"),
              let minute = scanner.number(2), scanner.skip(":"), let second = scanner.number(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
              second < 61  // 60: a leap second, counted as the next second's start
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") || scanner.skip(",") {
            guard let value = scanner.fraction() else { return nil }
            fraction = value
        }
        guard let offset = scanner.zoneOffsetSeconds(), scanner.atEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second - offset) + fraction
    }

    /// The times `format` can write: 0001-01-01 to 9999-12-31 (a fix's time is what the rider uploaded, unchecked: a
    /// time outside this range is left out of the file rather than trapping the integer conversion).
    static let representable = -62_135_596_800.0...253_402_300_799.0

    /// `seconds` (within ``representable``) as `YYYY-MM-DDThh:mm:ss[.mmm]Z` (milliseconds rounded; shown only when not
    /// zero).
    static func format(_ seconds: Double) -> String {
        let totalMilliseconds = Int64((seconds * 1_000).rounded())
        let milliseconds = Int(((totalMilliseconds % 1_000) + 1_000) % 1_000)
        let whole = (totalMilliseconds - Int64(milliseconds)) / 1_000
        let days = Int(whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400)
        let secondOfDay = Int(whole - Int64(days) * 86_400)
        let (year, month, day) = civilFromDays(days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3_600, 2) + ":"
            + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if milliseconds != 0 { text += "." + pad(milliseconds, 3) }
        return text + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Reads fixed-width decimal fields and punctuation from a timestamp's bytes.
private struct DigitScanner<Bytes: RandomAccessCollection<UInt8>> where Bytes.Index == Int {
    let bytes: Bytes
    var index: Int

    init(bytes: Bytes) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var atEnd: Bool { index == bytes.endIndex }

    mutating func number(_ width: Int) -> Int? {
        guard bytes.endIndex - index >= width else { return nil }
        var value = 0
        for _ in 0..<width {
            let digit = Int(bytes[index]) - 48
            guard (0...9).contains(digit) else { return nil }
            value = value * 10 + digit
            index += 1
        }
        return value
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        skip(anyOf: String(character))
    }

    mutating func skip(anyOf characters: String) -> Bool {
        guard index < bytes.endIndex, characters.utf8.contains(bytes[index]) else { return false }
        index += 1
        return true
    }

    /// The digits after the decimal point as a fraction of a second (at least one digit).
    mutating func fraction() -> Double? {
        var value = 0.0, scale = 1.0, digits = 0
        while index < bytes.endIndex, (48...57).contains(bytes[index]) {
            if digits < 12 {
                scale /= 10
                value += Double(bytes[index] - 48) * scale
            }
            digits += 1
            index += 1
        }
        return digits > 0 ? value : nil
    }

    /// The zone's offset east of UTC in seconds: 0 for `Z` or no zone; `nil` when malformed.
    mutating func zoneOffsetSeconds() -> Int? {
        if atEnd || skip(anyOf: "Zz") { return 0 }
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") else { return nil }
        let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
        index += 1
        guard let hours = number(2), hours < 24 else { return nil }
        var minutes = 0
        if !atEnd {
            _ = skip(":")
            guard let value = number(2), value < 60 else { return nil }
            minutes = value
        }
        return sign * (hours * 3_600 + minutes * 60)
    }
}
