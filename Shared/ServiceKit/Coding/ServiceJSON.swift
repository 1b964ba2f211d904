#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON conventions of every Waypoint HTTP body: camelCase keys, RFC 3339 UTC timestamps.
public enum ServiceJSON {
    /// An encoder writing dates as RFC 3339 UTC with millisecond precision, e.g. `2025-05-01T09:30:00.000Z`.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(fractionalTimestamp))
        }
        return encoder
    }

    /// A decoder accepting RFC 3339 timestamps with or without fractional seconds.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = parseTimestamp(text) { return date }
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "Expected an RFC 3339 timestamp such as 2025-05-01T09:30:00Z"
            )
        }
        return decoder
    }

    /// Parses an RFC 3339 timestamp, with or without fractional seconds.
    public static func parseTimestamp(_ text: String) -> Date? {
        (try? Date(text, strategy: fractionalTimestamp)) ?? (try? Date(text, strategy: wholeSecondTimestamp))
    }

    /// RFC 3339 in UTC with fractional seconds.
    static let fractionalTimestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    /// RFC 3339 in UTC without fractional seconds.
    static let wholeSecondTimestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt)
}
