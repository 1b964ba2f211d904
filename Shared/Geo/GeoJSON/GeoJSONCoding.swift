// Shared plumbing for the GeoJSON Codable conformances: the member names, the `type` values, and
// the two checks every object makes while decoding.

/// Member names used by RFC 7946 objects.
enum GeoJSONKey: String, CodingKey {
    case type, coordinates, geometries, geometry, properties, id, features, bbox
}

/// The nine values of a GeoJSON `type` member.
enum GeoJSONType: String, Codable, Sendable {
    case point = "Point"
    case multiPoint = "MultiPoint"
    case lineString = "LineString"
    case multiLineString = "MultiLineString"
    case polygon = "Polygon"
    case multiPolygon = "MultiPolygon"
    case geometryCollection = "GeometryCollection"
    case feature = "Feature"
    case featureCollection = "FeatureCollection"
}

extension DecodingError {
    /// Wraps a GeoJSON rule violation found at `codingPath`.
    static func geoJSON(_ error: GeoJSONError, at codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: codingPath, debugDescription: error.description, underlyingError: error))
    }
}

extension KeyedDecodingContainer where Key == GeoJSONKey {
    /// Reads the `type` member, failing unless it is `expected`.
    func decodeType(_ expected: GeoJSONType) throws {
        let found = try decode(String.self, forKey: .type)
        guard found == expected.rawValue else {
            throw DecodingError.geoJSON(
                .unexpectedType(expected: expected.rawValue, found: found),
                at: codingPath + [Key.type]
            )
        }
    }

    /// Runs a validating initialiser, reporting its complaint at the member `key`.
    func validated<Value>(at key: Key, _ build: () throws(GeoJSONError) -> Value) throws -> Value {
        do {
            return try build()
        } catch {
            throw DecodingError.geoJSON(error, at: codingPath + [key])
        }
    }
}
