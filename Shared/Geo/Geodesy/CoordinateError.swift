/// Why a pair of numbers is not a `Coordinate`.
public enum CoordinateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Latitude or longitude is NaN or infinite.
    case nonFinite
    /// Latitude, in degrees, lies outside −90…90.
    case latitudeOutOfRange(Double)
    /// Longitude, in degrees, lies outside −180…180.
    case longitudeOutOfRange(Double)

    /// A sentence for logs and problem details.
    public var description: String {
        switch self {
        case .nonFinite: "latitude and longitude must be finite numbers"
        case .latitudeOutOfRange(let value): "latitude \(value) is outside -90...90 degrees"
        case .longitudeOutOfRange(let value): "longitude \(value) is outside -180...180 degrees"
        }
    }
}
