/// Any GeoJSON geometry (RFC 7946 §3.1), chosen by its `type` member.
public enum Geometry: Sendable, Hashable {
    /// A single position.
    case point(Point)
    /// A set of positions.
    case multiPoint(MultiPoint)
    /// A line through two or more positions.
    case lineString(LineString)
    /// Several lines.
    case multiLineString(MultiLineString)
    /// An area with optional holes.
    case polygon(Polygon)
    /// Several areas.
    case multiPolygon(MultiPolygon)
    /// A heterogeneous list of geometries.
    case geometryCollection(GeometryCollection)
}

extension Geometry: Codable {
    /// Decodes whichever geometry the `type` member names; any other `type`, including "Feature",
    /// fails with `GeoJSONError.unexpectedType`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        let found = try container.decode(String.self, forKey: .type)
        switch GeoJSONType(rawValue: found) {
        case .point?: self = .point(try Point(from: decoder))
        case .multiPoint?: self = .multiPoint(try MultiPoint(from: decoder))
        case .lineString?: self = .lineString(try LineString(from: decoder))
        case .multiLineString?: self = .multiLineString(try MultiLineString(from: decoder))
        case .polygon?: self = .polygon(try Polygon(from: decoder))
        case .multiPolygon?: self = .multiPolygon(try MultiPolygon(from: decoder))
        case .geometryCollection?: self = .geometryCollection(try GeometryCollection(from: decoder))
        case .feature?, .featureCollection?, nil:
            throw DecodingError.geoJSON(
                .unexpectedType(expected: "a geometry type", found: found),
                at: container.codingPath + [GeoJSONKey.type]
            )
        }
    }

    /// Encodes the wrapped geometry's RFC 7946 object.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .point(let geometry): try geometry.encode(to: encoder)
        case .multiPoint(let geometry): try geometry.encode(to: encoder)
        case .lineString(let geometry): try geometry.encode(to: encoder)
        case .multiLineString(let geometry): try geometry.encode(to: encoder)
        case .polygon(let geometry): try geometry.encode(to: encoder)
        case .multiPolygon(let geometry): try geometry.encode(to: encoder)
        case .geometryCollection(let geometry): try geometry.encode(to: encoder)
        }
    }
}
