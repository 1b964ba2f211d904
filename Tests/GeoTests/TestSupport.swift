import Foundation
import Testing

@testable import Geo

/// A coordinate from literals the test knows to be valid.
func coordinate(_ latitude: Double, _ longitude: Double) -> Coordinate {
    try! Coordinate(latitude: latitude, longitude: longitude)
}

/// Degrees from the degrees–minutes–seconds that reference tables print; negative for S and W.
func dms(_ degrees: Double, _ minutes: Double, _ seconds: Double = 0) -> Double {
    let magnitude = abs(degrees) + minutes / 60 + seconds / 3600
    return degrees < 0 ? -magnitude : magnitude
}

/// Decodes `json` as `T`.
func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(json.utf8))
}

/// Encodes `value` and decodes the result back.
func roundTrip<T: Codable>(_ value: T) throws -> T {
    try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
}

/// The typed error wrapped in a `DecodingError.dataCorrupted`, if that is what `error` is.
func underlying<E: Error>(_ type: E.Type, of error: any Error) -> E? {
    guard case DecodingError.dataCorrupted(let context) = error else { return nil }
    return context.underlyingError as? E
}

/// The coding path of a `DecodingError`, as dotted text for readable expectations.
func codingPath(of error: any Error) -> String? {
    let context: DecodingError.Context? = switch error as? DecodingError {
    case .dataCorrupted(let context)?, .typeMismatch(_, let context)?,
        .valueNotFound(_, let context)?, .keyNotFound(_, let context)?: context
    default: nil
    }
    return context?.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
}
