import Foundation
import ServiceKit

/// An inclusive range of UTC days, as the `from` and `to` query parameters give it.
public struct AnalyticsRange: Sendable, Hashable, CustomStringConvertible {
    public var from: UTCDay
    public var to: UTCDay

    /// The longest range a query may cover: two years (731 days, one of them possibly a 29 February).
    public static let maximumDays = 731
    /// The default range: the last 30 days, today included.
    public static let defaultDays = 30

    public init(from: UTCDay, to: UTCDay) {
        self.from = from
        self.to = to
    }

    public var days: Int { to.number - from.number + 1 }

    /// Every day of the range, oldest first.
    public var allDays: [UTCDay] { Array(from...to) }

    public var description: String { "\(from)…\(to)" }

    /// Reads `from` and `to` (`YYYY-MM-DD`, UTC days, both included). Missing `to` is today; missing `from` is
    /// `defaultDays` days up to `to`.
    /// - Throws: 422 `invalid-field` for a value that is not a date, `from` after `to` (`range-reversed`), or a range
    ///   over ``maximumDays`` (`range-too-long`).
    public static func parse(_ parameters: [String: String], today: UTCDay, defaultDays: Int = defaultDays) throws -> AnalyticsRange {
        var validator = Validator()
        let to = parse(parameters["to"], field: "to", &validator)
        let from = parse(parameters["from"], field: "from", &validator)
        try validator.check()
        let end = to ?? today
        let start = from ?? end.advanced(by: -(defaultDays - 1))
        validator.require(start <= end, field: "from", code: "range-reversed", message: "must not be after to (\(end))")
        if start <= end {
            validator.require(end.number - start.number + 1 <= maximumDays, field: "to", code: "range-too-long",
                              message: "the range covers at most \(maximumDays) days (2 years)")
        }
        try validator.check()
        return AnalyticsRange(from: start, to: end)
    }

    private static func parse(_ raw: String?, field: String, _ validator: inout Validator) -> UTCDay? {
        guard let raw else { return nil }
        let day = UTCDay(iso: raw)
        validator.require(day != nil, field: field, code: "invalid-date", message: "must be a date YYYY-MM-DD (UTC), 1970 or later")
        return day
    }
}
