/// Why a GeoJSON object breaks RFC 7946.
///
/// Validating initialisers throw it directly. While decoding it arrives as the `underlyingError`
/// of a `DecodingError.dataCorrupted` whose coding path points at the offending member, so the HTTP
/// layer reports every malformed body the same way.
public enum GeoJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `type` member names a different object than the one expected here.
    case unexpectedType(expected: String, found: String)
    /// A position has this many numbers instead of two (longitude, latitude) or three (plus altitude).
    case invalidPosition(elementCount: Int)
    /// A position's longitude or latitude is out of range.
    case positionOutOfRange(CoordinateError)
    /// A line string has fewer than 2 positions, or a linear ring fewer than 4.
    case tooFewPositions(minimum: Int, found: Int)
    /// A linear ring's last position differs from its first (RFC 7946 §3.1.6).
    case unclosedRing
    /// A polygon has no rings at all, so no exterior ring.
    case missingExteriorRing

    /// A sentence for logs and problem details.
    public var description: String {
        switch self {
        case .unexpectedType(let expected, let found): "expected type \(expected) but found \"\(found)\""
        case .invalidPosition(let count): "a position needs 2 or 3 numbers, found \(count)"
        case .positionOutOfRange(let error): "position out of range: \(error)"
        case .tooFewPositions(let minimum, let found): "needs at least \(minimum) positions, found \(found)"
        case .unclosedRing: "a linear ring must end at the position where it starts"
        case .missingExteriorRing: "a polygon needs an exterior ring"
        }
    }
}
