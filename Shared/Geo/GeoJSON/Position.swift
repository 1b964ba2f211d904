/// A GeoJSON position: `[longitude, latitude]` or `[longitude, latitude, altitude]` (RFC 7946 §3.1.1).
///
/// Note the order: GeoJSON puts longitude first, unlike the `{ "lat", "lng" }` request shape.
public struct Position: Sendable, Hashable {
    /// The horizontal position, in degrees.
    public let coordinate: Coordinate
    /// Height in metres above (negative: below) the WGS 84 ellipsoid, when the source recorded one.
    public let altitude: Double?

    /// Creates a position at `coordinate`, optionally `altitude` metres above the WGS 84 ellipsoid.
    public init(_ coordinate: Coordinate, altitude: Double? = nil) {
        self.coordinate = coordinate
        self.altitude = altitude
    }

    /// Creates a position from degrees, in GeoJSON's longitude-first order, and an optional
    /// altitude in metres.
    /// - Throws: `CoordinateError` when longitude or latitude is out of range.
    public init(longitude: Double, latitude: Double, altitude: Double? = nil) throws(CoordinateError) {
        self.init(try Coordinate(latitude: latitude, longitude: longitude), altitude: altitude)
    }

    /// Degrees east of Greenwich.
    public var longitude: Double { coordinate.longitude }
    /// Degrees north of the equator.
    public var latitude: Double { coordinate.latitude }
}

extension Position: Codable {
    /// Decodes a 2- or 3-number array, rejecting other lengths and out-of-range values.
    ///
    /// RFC 7946 lets writers add elements beyond altitude but gives them no meaning; they are
    /// rejected rather than silently dropped.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var values: [Double] = []
        while !container.isAtEnd {
            values.append(try container.decode(Double.self))
        }
        guard values.count == 2 || values.count == 3 else {
            throw DecodingError.geoJSON(.invalidPosition(elementCount: values.count), at: decoder.codingPath)
        }
        do {
            try self.init(longitude: values[0], latitude: values[1], altitude: values.count == 3 ? values[2] : nil)
        } catch {
            throw DecodingError.geoJSON(.positionOutOfRange(error), at: decoder.codingPath)
        }
    }

    /// Encodes `[longitude, latitude]`, or `[longitude, latitude, altitude]` when there is one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(longitude)
        try container.encode(latitude)
        if let altitude { try container.encode(altitude) }
    }
}
