import Contracts
import Foundation

/// A calendar day in UTC, as the number of days since 1970-01-01 — the time bucket of every analytics table.
///
/// Buckets are UTC by design: a day, an ISO week and a calendar month mean the same instants for every guide and every
/// replay, whatever the server's or the caller's time zone. Weeks are ISO 8601 weeks (Monday first; week 1 holds the
/// year's first Thursday); months are calendar months.
public struct UTCDay: Hashable, Comparable, Sendable, Strideable, CustomStringConvertible {
    /// Days since 1970-01-01 (day 0, a Thursday).
    public var number: Int

    public init(_ number: Int) {
        self.number = number
    }

    /// The UTC day containing `date`.
    public init(_ date: Date) {
        number = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The UTC day containing the instant `microseconds` after 1970.
    public init(microsecondsSince1970 microseconds: Int64) {
        let perDay: Int64 = 86_400_000_000
        number = Int(microseconds >= 0 ? microseconds / perDay : (microseconds - perDay + 1) / perDay)
    }

    /// The day `year`-`month`-`day` of the proleptic Gregorian calendar (``CivilDate``).
    public init(year: Int, month: Int, day: Int) {
        number = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
    }

    /// Parses `YYYY-MM-DD` strictly (a real calendar date, years 1970–9999); `nil` otherwise.
    public init?(iso text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), year >= 1970,
              (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Year, month (1–12) and day of month (``CivilDate``).
    public var civil: (year: Int, month: Int, day: Int) {
        CivilDate.civil(fromDaysSinceEpoch: number)
    }

    /// `YYYY-MM-DD`.
    public var iso: String {
        let (year, month, day) = civil
        return Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2)
    }

    public var description: String { iso }

    /// Midnight UTC at the start of the day.
    public var start: Date { Date(timeIntervalSince1970: Double(number) * 86_400) }

    /// 1 = Monday … 7 = Sunday.
    public var isoWeekday: Int { Self.floorModulo(number + 3, 7) + 1 }

    /// The Monday of this day's ISO week.
    public var weekStart: UTCDay { UTCDay(number - (isoWeekday - 1)) }

    /// The ISO 8601 week: the week-numbering year (that of the week's Thursday) and the week number (1–53).
    public var isoWeek: ISOWeek {
        let thursday = UTCDay(weekStart.number + 3)
        let year = thursday.civil.year
        let week = (thursday.number - UTCDay(year: year, month: 1, day: 1).number) / 7 + 1
        return ISOWeek(year: year, week: week)
    }

    /// The calendar month this day is in.
    public var month: CalendarMonth {
        let (year, month, _) = civil
        return CalendarMonth(year: year, month: month)
    }

    public static func < (lhs: UTCDay, rhs: UTCDay) -> Bool { lhs.number < rhs.number }
    public func distance(to other: UTCDay) -> Int { other.number - number }
    public func advanced(by n: Int) -> UTCDay { UTCDay(number + n) }

    static func daysIn(month: Int, year: Int) -> Int { CivilDate.daysIn(month: month, year: year) }
    static func floorDivide(_ a: Int, _ b: Int) -> Int { CivilDate.floorDivide(a, b) }
    static func floorModulo(_ a: Int, _ b: Int) -> Int { CivilDate.floorModulo(a, b) }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// An ISO 8601 week, written `2026-W05`.
public struct ISOWeek: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int
    public var week: Int

    public init(year: Int, week: Int) {
        self.year = year
        self.week = week
    }

    public var description: String { "\(year)-W\(UTCDay.pad(week, 2))" }

    public static func < (lhs: ISOWeek, rhs: ISOWeek) -> Bool { (lhs.year, lhs.week) < (rhs.year, rhs.week) }
}

/// A calendar month, written `2026-02`.
public struct CalendarMonth: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int

    public init(year: Int, month: Int) {
        self.year = year
        self.month = month
    }

    /// The first day of the month.
    public var firstDay: UTCDay { UTCDay(year: year, month: month, day: 1) }
    /// The last day of the month.
    public var lastDay: UTCDay { UTCDay(year: year, month: month, day: UTCDay.daysIn(month: month, year: year)) }

    /// The month `n` months later (earlier for negative `n`).
    public func advanced(by n: Int) -> CalendarMonth {
        let index = year * 12 + (month - 1) + n
        return CalendarMonth(year: UTCDay.floorDivide(index, 12), month: UTCDay.floorModulo(index, 12) + 1)
    }

    public var description: String { "\(UTCDay.pad(year, 4))-\(UTCDay.pad(month, 2))" }

    public static func < (lhs: CalendarMonth, rhs: CalendarMonth) -> Bool { (lhs.year, lhs.month) < (rhs.year, rhs.month) }
}
