import Foundation

/// The canonical JSON configuration of the published language, used by every producer and
/// consumer of an ``IntegrationEvent`` (and by the golden files that pin them).
///
/// - Keys are the Swift property names (camelCase), written in sorted order, so the same
///   payload always encodes to the same bytes.
/// - Dates are RFC 3339 UTC strings (see ``RFC3339Timestamp``); decoding accepts them with
///   or without fractional seconds.
/// - Slashes are not escaped, so URLs read as URLs.
///
/// Each property returns a fresh, independently configurable instance.
public enum ContractJSON {
    /// A compact encoder with sorted keys and RFC 3339 dates: the wire format.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            guard let text = RFC3339Timestamp.string(from: date) else {
                throw EncodingError.invalidValue(
                    date,
                    EncodingError.Context(
                        codingPath: encoder.codingPath,
                        debugDescription: "Date \(date.timeIntervalSinceReferenceDate) s after 2001 is outside years 0001–9999"
                    )
                )
            }
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
        return encoder
    }

    /// The wire-format encoder, pretty-printed: the format of golden files and examples.
    public static var prettyEncoder: JSONEncoder {
        let encoder = Self.encoder
        encoder.outputFormatting.insert(.prettyPrinted)
        return encoder
    }

    /// A decoder for the wire format, reading RFC 3339 dates with any offset and precision.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339Timestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "'\(text)' is not an RFC 3339 date-time such as 2026-11-22T10:00:00Z"
                )
            }
            return date
        }
        return decoder
    }

    /// `value` in the compact wire format.
    ///
    /// A ``JSONWritable`` value of the contract style writes itself (the same bytes, without `Codable`'s cost); debug
    /// builds check those bytes against `JSONEncoder`'s on every call.
    public static func encode(_ value: some Encodable) throws -> Data {
        if let writable = value as? any JSONWritable, let bytes = writable.jsonBytes(style: .contract) {
            #if DEBUG
            let expected = try encoder.encode(value)
            precondition(Data(bytes) == expected, """
                \(type(of: value))'s JSONWritable output differs from JSONEncoder's:
                \(String(decoding: bytes, as: UTF8.self))
                \(String(decoding: expected, as: UTF8.self))
                """)
            #endif
            return Data(bytes)
        }
        return try encoder.encode(value)
    }

    /// A `T` read from wire-format `data`.
    ///
    /// A ``JSONReadable`` type reads the shape it writes itself (without `Codable`'s cost), and leaves anything else to
    /// `JSONDecoder`; debug builds check what it read against `JSONDecoder`'s value on every call.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let readable = T.self as? any JSONReadable.Type, let read = readable.readJSON(data) as? T {
            #if DEBUG
            let expected = try decoder.decode(type, from: data)
            precondition(readable.same(read, expected), """
                \(T.self)'s JSONReadable reading differs from JSONDecoder's:
                \(read)
                \(expected)
                """)
            #endif
            return read
        }
        return try decoder.decode(type, from: data)
    }
}

/// A type of the published language or of a stored event that reads its own wire-format JSON (``ContractJSON``'s:
/// sorted keys as ``JSONWritable`` writes them, RFC 3339 dates) without `Codable` — for the few whose decoding dominates
/// a service's CPU (a trip's chunk, 100–300 KB of sealed samples, read by the aggregate and its projections).
///
/// `readJSON` answers `nil` for anything it does not read exactly as `JSONDecoder` would — an unknown or repeated member,
/// an escape, a `null`, a number it cannot convert exactly — and ``ContractJSON/decode(_:from:)`` then decodes the
/// bytes with `JSONDecoder`, so every error and every other shape is read as it always was.
public protocol JSONReadable: Decodable, Equatable {
    /// The value of `data`, or `nil` to leave it to `JSONDecoder`.
    static func readJSON(_ data: Data) -> Self?
}

extension JSONReadable {
    /// Whether two values of this type are equal (the debug check of ``ContractJSON/decode(_:from:)``).
    static func same(_ a: Any, _ b: Any) -> Bool {
        guard let a = a as? Self, let b = b as? Self else { return false }
        return a == b
    }

}
