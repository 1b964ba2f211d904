/// A GeoJSON LineString (RFC 7946 §3.1.4): two or more positions joined in order — a path or a
/// route in a response.
public struct LineString: Sendable, Hashable {
    /// The positions in travel order; at least two.
    public let coordinates: [Position]
    /// Optional extent of the geometry (RFC 7946 §5).
    public let bbox: BoundingBox?

    /// Creates a line string through `coordinates`.
    /// - Throws: `GeoJSONError.tooFewPositions` for fewer than two positions.
    public init(_ coordinates: [Position], bbox: BoundingBox? = nil) throws(GeoJSONError) {
        try Self.validate(coordinates)
        self.coordinates = coordinates
        self.bbox = bbox
    }

    /// Checks the RFC 7946 rule for a line string's positions; shared with `MultiLineString`.
    static func validate(_ coordinates: [Position]) throws(GeoJSONError) {
        guard coordinates.count >= 2 else { throw .tooFewPositions(minimum: 2, found: coordinates.count) }
    }
}

extension LineString: Codable {
    /// Decodes `{ "type": "LineString", "coordinates": [[lng, lat], …] }`, rejecting fewer than
    /// two positions.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        try container.decodeType(.lineString)
        let coordinates = try container.decode([Position].self, forKey: .coordinates)
        let bbox = try container.decodeIfPresent(BoundingBox.self, forKey: .bbox)
        self = try container.validated(at: .coordinates) { () throws(GeoJSONError) in
            try LineString(coordinates, bbox: bbox)
        }
    }

    /// Encodes the RFC 7946 object, `bbox` only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GeoJSONKey.self)
        try container.encode(GeoJSONType.lineString, forKey: .type)
        try container.encode(coordinates, forKey: .coordinates)
        try container.encodeIfPresent(bbox, forKey: .bbox)
    }
}
