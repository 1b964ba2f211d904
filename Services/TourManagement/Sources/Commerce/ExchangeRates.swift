import Contracts
import EventSourcing
import Foundation
import Synchronization

/// An exchange rate as operators type it: a positive decimal string, up to 7 integer and 10 fraction digits, read
/// exactly (no binary floating point), e.g. `1.0842` (US dollars per euro).
public struct DecimalRate: Sendable, Hashable, CustomStringConvertible {
    /// The digits without the point: `10842` for `1.0842`.
    public let units: Int64
    /// Digits after the point: 4 for `1.0842`.
    public let scale: Int

    public static let maxIntegerDigits = 7
    public static let maxFractionDigits = 10

    /// Parses `1`, `1.0842`, `0.000123`; `nil` for anything else (signs, exponents, zero, too many digits).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty, whole.count <= Self.maxIntegerDigits,
              whole.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        guard parts.count == 1 || !fraction.isEmpty, fraction.count <= Self.maxFractionDigits,
              fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        guard let units = Int64(whole + fraction), units > 0 else { return nil }
        self.units = units
        scale = fraction.count
    }

    /// The canonical spelling: no trailing zeros after the point, no leading zeros before it.
    public var description: String {
        let digits = String(units)
        guard scale > 0 else { return digits }
        let padded = String(repeating: "0", count: max(0, scale + 1 - digits.count)) + digits
        return "\(padded.dropLast(scale)).\(padded.suffix(scale))"
    }

    /// `units` at `scale` digits (≥ `self.scale`).
    func units(atScale target: Int) -> Int128 {
        var value = Int128(units)
        for _ in 0..<(target - scale) { value *= 10 }
        return value
    }
}

/// A price in another currency, approximately: what lists show next to the tour's own price.
public struct ConvertedPrice: Codable, Sendable, Hashable {
    /// In minor units of `currency` (its own ISO 4217 exponent), rounded half up (away from zero).
    public var amountMinor: Int64
    public var currency: CurrencyCode
    /// When operators last updated the rates used; `nil` for a price already in `currency` (no rate involved).
    public var ratesUpdatedAt: Date?

    public init(amountMinor: Int64, currency: CurrencyCode, ratesUpdatedAt: Date?) {
        self.amountMinor = amountMinor
        self.currency = currency
        self.ratesUpdatedAt = ratesUpdatedAt
    }
}

/// The operators' rates: units of each currency per one unit of the base currency, EUR.
public struct ExchangeRateTable: Sendable, Hashable {
    public static let base = CurrencyCode.eur

    /// By currency code; EUR is implicitly 1 and never stored.
    public var rates: [String: DecimalRate]
    /// When the table was last replaced; `nil` when it never was.
    public var updatedAt: Date?

    public init(rates: [String: DecimalRate] = [:], updatedAt: Date? = nil) {
        self.rates = rates
        self.updatedAt = updatedAt
    }

    /// Units of `currency` per euro.
    public func rate(_ currency: CurrencyCode) -> DecimalRate? {
        currency == Self.base ? DecimalRate("1") : rates[currency.code]
    }

    /// `price` in `target`: amount × rate(target) / rate(source), scaled by the two currencies' minor-unit exponents and
    /// rounded half up (away from zero) to the target's minor unit, in exact integer arithmetic (128-bit; `nil` on
    /// overflow, which prices up to 10⁸ minor units never reach). `nil` when a rate is missing. Same currency: the price
    /// itself, without a rates time.
    public func convert(_ price: Money, to target: CurrencyCode) -> ConvertedPrice? {
        if price.currency == target { return ConvertedPrice(amountMinor: price.amountMinor, currency: target, ratesUpdatedAt: nil) }
        guard let from = rate(price.currency), let to = rate(target) else { return nil }
        let scale = max(from.scale, to.scale)
        // amount/10^e_from / from × to × 10^e_to, with both rates at one scale so it cancels.
        var numerator = Int128(price.amountMinor.magnitude)
        var denominator = from.units(atScale: scale)
        for factor in [to.units(atScale: scale)] + Array(repeating: Int128(10), count: target.minorUnitExponent) {
            let (product, overflow) = numerator.multipliedReportingOverflow(by: factor)
            guard !overflow else { return nil }
            numerator = product
        }
        for _ in 0..<price.currency.minorUnitExponent { denominator *= 10 }
        var (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
        if remainder * 2 >= denominator { quotient += 1 }
        guard quotient <= Int128(Int64.max) else { return nil }
        let amount = Int64(quotient)
        return ConvertedPrice(amountMinor: price.amountMinor < 0 ? -amount : amount, currency: target, ratesUpdatedAt: updatedAt)
    }
}

/// The exchange rates of the service: the table, cached in memory for `cacheLifetime` (list pages convert dozens of
/// prices per request), replaced by operators through ``replace(_:at:)``. Another instance's replacement is seen within
/// `cacheLifetime`.
public final class ExchangeRates: Sendable {
    public let store: any ExchangeRateStore
    public let cacheLifetime: Duration
    private let cache = Mutex<(table: ExchangeRateTable, loadedAt: ContinuousClock.Instant)?>(nil)

    public init(store: any ExchangeRateStore, cacheLifetime: Duration = .seconds(10)) {
        self.store = store
        self.cacheLifetime = cacheLifetime
    }

    /// The current table (from the cache when fresh).
    public func table() async throws -> ExchangeRateTable {
        let now = ContinuousClock.now
        if let cached = cache.withLock({ $0 }), now - cached.loadedAt < cacheLifetime { return cached.table }
        let table = try await store.load()
        cache.withLock { $0 = (table, now) }
        return table
    }

    /// Replaces every rate; returns the new table.
    @discardableResult
    public func replace(_ rates: [String: DecimalRate], at date: Date) async throws -> ExchangeRateTable {
        try await store.replace(with: rates, at: date)
        let table = ExchangeRateTable(rates: rates, updatedAt: rates.isEmpty ? nil : Date(microsecondsSince1970: date.microsecondsSince1970))
        cache.withLock { $0 = (table, ContinuousClock.now) }
        return table
    }

    /// `price` in `currency`, or `nil` without a currency or without rates for it: what `GET /v1/tours?currency=` adds.
    public func converted(_ price: Money, to currency: CurrencyCode?) async throws -> ConvertedPrice? {
        guard let currency else { return nil }
        if price.currency == currency { return ExchangeRateTable().convert(price, to: currency) }
        return try await table().convert(price, to: currency)
    }

    /// `convert(price, to:)` on the current table.
    public func convert(_ price: Money, to currency: CurrencyCode) async throws -> ConvertedPrice? {
        try await converted(price, to: currency)
    }
}
