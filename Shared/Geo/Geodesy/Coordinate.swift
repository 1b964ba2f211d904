/// A point on the Earth's surface in WGS 84 degrees, as a traveller's phone or a cyclist's GPS reports it.
///
/// The validating initialiser is the only public way to make one, so a `Coordinate` in hand is always
/// finite with latitude in −90…90 and longitude in −180…180. On the wire it is `{ "lat": …, "lng": … }`,
/// the request shape of every Waypoint HTTP API.
public struct Coordinate: Sendable, Hashable {
    /// Degrees north of the equator, −90…90 (negative is south).
    public let latitude: Double
    /// Degrees east of the Greenwich meridian, −180…180 (negative is west).
    public let longitude: Double

    /// Creates a coordinate from a latitude and a longitude in degrees.
    ///
    /// Use `try?` where a missing value is enough and the reason does not matter.
    /// - Throws: `CoordinateError` when either value is not finite or lies outside its range.
    public init(latitude: Double, longitude: Double) throws(CoordinateError) {
        guard latitude.isFinite, longitude.isFinite else { throw .nonFinite }
        guard (-90.0...90.0).contains(latitude) else { throw .latitudeOutOfRange(latitude) }
        guard (-180.0...180.0).contains(longitude) else { throw .longitudeOutOfRange(longitude) }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Wraps the result of Geo's own trigonometry, which is finite by construction but may overshoot by
    /// a rounding error at the poles or leave −180..<180 when a path crosses the antimeridian.
    /// - Parameter keepingLongitude: Skip the wrap for a longitude the caller has already placed
    ///   in −180…180 on purpose (a box's east edge at exactly 180).
    init(computedLatitude latitude: Double, longitude: Double, keepingLongitude: Bool = false) {
        precondition(latitude.isFinite && longitude.isFinite, "geodesy produced a non-finite coordinate")
        assert(!keepingLongitude || (-180.0...180.0).contains(longitude))
        self.latitude = min(90, max(-90, latitude))
        self.longitude = keepingLongitude ? longitude : normalizedLongitude(longitude)
    }
}

extension Coordinate: CustomStringConvertible {
    /// `(latitude, longitude)` in degrees, for logs and test failures.
    public var description: String { "(\(latitude), \(longitude))" }
}

extension Coordinate: Codable {
    private enum CodingKeys: String, CodingKey {
        case latitude = "lat"
        case longitude = "lng"
    }

    /// Decodes `{ "lat": degrees, "lng": degrees }`, reporting an out-of-range value as
    /// `DecodingError.dataCorrupted` at the offending key with the `CoordinateError` as underlying error,
    /// so the HTTP layer can name the field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let latitude = try container.decode(Double.self, forKey: .latitude)
        let longitude = try container.decode(Double.self, forKey: .longitude)
        do {
            try self.init(latitude: latitude, longitude: longitude)
        } catch {
            let key: CodingKeys = switch error {
            case .longitudeOutOfRange: .longitude
            case .nonFinite where latitude.isFinite: .longitude
            default: .latitude
            }
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath + [key],
                debugDescription: error.description,
                underlyingError: error
            ))
        }
    }

    /// Encodes `{ "lat": degrees, "lng": degrees }`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
    }
}
