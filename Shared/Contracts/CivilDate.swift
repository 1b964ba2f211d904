/// Civil dates of the proleptic Gregorian calendar as days since 1970-01-01 (day 0, a Thursday): the one calendar
/// arithmetic behind ``RFC3339Timestamp`` and analytics' UTC days (Howard Hinnant's days-from-civil and
/// civil-from-days algorithms, exact for every year).
public enum CivilDate {
    /// Days from 1970-01-01 to `year`-`month`-`day` (negative before 1970). `month` is 1–12; `day` is not checked.
    @inlinable
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Year, month (1–12) and day of month of the day `days` after 1970-01-01.
    @inlinable
    public static func civil(fromDaysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
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

    /// The number of days of `month` (1–12) in `year`.
    @inlinable
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `a / b` rounded towards negative infinity (`b > 0`).
    @inlinable
    public static func floorDivide(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    /// `a` modulo `b` in `0..<b` (`b > 0`).
    @inlinable
    public static func floorModulo(_ a: Int, _ b: Int) -> Int {
        a - floorDivide(a, b) * b
    }
}
