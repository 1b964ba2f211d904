/// An active ISO 4217 alphabetic currency code, such as `EUR`, with the exponent of its
/// minor unit.
///
/// Only codes on ISO 4217 List One (current currencies and funds) that have a minor unit
/// are valid: a ``Money`` amount is an integer count of minor units, which has no meaning
/// for precious metals, bond-market units, SDR or the testing codes. Codes are upper case
/// on the wire and nowhere else spelled differently: `"eur"` is rejected, not normalised.
///
/// Encoded as a bare JSON string, e.g. `"EUR"`.
public struct CurrencyCode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The three-letter alphabetic code, e.g. `EUR`.
    public let code: String

    /// The number of decimal places of the minor unit: 0 for `JPY`, 2 for `EUR`,
    /// 3 for `BHD`, 4 for `CLF`.
    public let minorUnitExponent: Int

    /// The code when it is an active ISO 4217 code with a minor unit, otherwise `nil`.
    public init?(_ code: String) {
        guard let exponent = Self.activeMinorUnitExponents[code] else { return nil }
        self.init(validated: code, minorUnitExponent: exponent)
    }

    private init(validated code: String, minorUnitExponent: Int) {
        self.code = code
        self.minorUnitExponent = minorUnitExponent
    }

    /// Every valid code, in alphabetical order.
    public static let allActive: [CurrencyCode] = activeMinorUnitExponents
        .map { CurrencyCode(validated: $0.key, minorUnitExponent: $0.value) }
        .sorted { $0.code < $1.code }

    /// How many minor units make one major unit, e.g. 100 for `EUR`, 1 for `JPY`.
    public var minorUnitsPerMajorUnit: Int64 {
        (0..<minorUnitExponent).reduce(1) { result, _ in result * 10 }
    }

    /// The alphabetic code, as in ``code``.
    public var description: String { code }

    /// Decodes a bare string and rejects anything that is not an active code.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let valid = CurrencyCode(raw) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "'\(raw)' is not an active ISO 4217 currency code with a minor unit"
            )
        }
        self = valid
    }

    /// Encodes the code as a bare string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}

extension CurrencyCode {
    /// Euro, 2 decimals.
    public static let eur = CurrencyCode(validated: "EUR", minorUnitExponent: 2)
    /// US dollar, 2 decimals.
    public static let usd = CurrencyCode(validated: "USD", minorUnitExponent: 2)
    /// Pound sterling, 2 decimals.
    public static let gbp = CurrencyCode(validated: "GBP", minorUnitExponent: 2)
    /// Swiss franc, 2 decimals.
    public static let chf = CurrencyCode(validated: "CHF", minorUnitExponent: 2)
    /// Japanese yen, no minor unit.
    public static let jpy = CurrencyCode(validated: "JPY", minorUnitExponent: 0)
}
