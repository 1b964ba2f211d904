/// A GeoJSON MultiLineString (RFC 7946 §3.1.5): several line strings, possibly none.
public struct MultiLineString: Sendable, Hashable {
    /// The lines, each with at least two positions.
    public let coordinates: [[Position]]
    /// Optional extent of the geometry (RFC 7946 §5).
    public let bbox: BoundingBox?

    /// Creates a multi-line string of `coordinates`.
    /// - Throws: `GeoJSONError.tooFewPositions` when a line has fewer than two positions.
    public init(_ coordinates: [[Position]], bbox: BoundingBox? = nil) throws(GeoJSONError) {
        for line in coordinates { try LineString.validate(line) }
        self.coordinates = coordinates
        self.bbox = bbox
    }
}

extension MultiLineString: Codable {
    /// Decodes `{ "type": "MultiLineString", "coordinates": [[[lng, lat], …], …] }`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        try container.decodeType(.multiLineString)
        let coordinates = try container.decode([[Position]].self, forKey: .coordinates)
        let bbox = try container.decodeIfPresent(BoundingBox.self, forKey: .bbox)
        self = try container.validated(at: .coordinates) { () throws(GeoJSONError) in
            try MultiLineString(coordinates, bbox: bbox)
        }
    }

    /// Encodes the RFC 7946 object, `bbox` only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GeoJSONKey.self)
        try container.encode(GeoJSONType.multiLineString, forKey: .type)
        try container.encode(coordinates, forKey: .coordinates)
        try container.encodeIfPresent(bbox, forKey: .bbox)
    }
}
