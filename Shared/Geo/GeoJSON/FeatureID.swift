/// A GeoJSON Feature's `id`: RFC 7946 §3.2 allows a string or a number.
public enum FeatureID: Sendable, Hashable {
    /// A string identifier, such as a UUID.
    case string(String)
    /// A numeric identifier; exact for integers up to ±2⁵³.
    case number(Double)
}

extension FeatureID: Codable {
    /// Decodes a JSON string or number; anything else is a `DecodingError.typeMismatch`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            throw DecodingError.typeMismatch(FeatureID.self, .init(
                codingPath: decoder.codingPath,
                debugDescription: "a Feature id must be a string or a number"
            ))
        }
    }

    /// Encodes the JSON string or number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        }
    }
}

extension FeatureID: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// A string literal is `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal is `.number`.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}
