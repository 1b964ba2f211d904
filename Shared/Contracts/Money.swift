/// An amount of money as an exact integer count of minor units of one currency: 12.99 EUR is
/// `Money(amountMinor: 1299, currency: .eur)`, 1500 JPY is `Money(amountMinor: 1500, currency: .jpy)`.
///
/// Encoded as `{"amountMinor": 1299, "currency": "EUR"}`. Never a floating-point number.
/// The sign is not restricted here (a refund may be negative); each command validates the
/// amounts it accepts.
public struct Money: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The amount in minor units of ``currency`` (cents for EUR, yen for JPY, fils for BHD).
    public let amountMinor: Int64

    /// The currency of the amount.
    public let currency: CurrencyCode

    /// An amount of `amountMinor` minor units of `currency`.
    public init(amountMinor: Int64, currency: CurrencyCode) {
        self.amountMinor = amountMinor
        self.currency = currency
    }

    /// Nothing, in `currency`: the price of a free tour.
    public static func zero(_ currency: CurrencyCode) -> Money {
        Money(amountMinor: 0, currency: currency)
    }

    /// The amount in major units with the currency's own number of decimals, for logs and
    /// messages: `12.99 EUR`, `1500 JPY`, `-0.05 EUR`, `1.250 BHD`.
    public var description: String {
        let exponent = currency.minorUnitExponent
        guard exponent > 0 else { return "\(amountMinor) \(currency.code)" }
        let magnitude = amountMinor.magnitude
        let perMajor = UInt64(currency.minorUnitsPerMajorUnit)
        let fraction = String(magnitude % perMajor)
        let padded = String(repeating: "0", count: exponent - fraction.count) + fraction
        let sign = amountMinor < 0 ? "-" : ""
        return "\(sign)\(magnitude / perMajor).\(padded) \(currency.code)"
    }
}
