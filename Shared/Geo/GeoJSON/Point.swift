/// A GeoJSON Point (RFC 7946 §3.1.2): a stop, a trigger location, an obstacle.
public struct Point: Sendable, Hashable {
    /// The single position.
    public let coordinates: Position
    /// Optional extent of the geometry (RFC 7946 §5).
    public let bbox: BoundingBox?

    /// Creates a point at `coordinates`.
    public init(_ coordinates: Position, bbox: BoundingBox? = nil) {
        self.coordinates = coordinates
        self.bbox = bbox
    }
}

extension Point: Codable {
    /// Decodes `{ "type": "Point", "coordinates": [lng, lat] }`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        try container.decodeType(.point)
        self.init(
            try container.decode(Position.self, forKey: .coordinates),
            bbox: try container.decodeIfPresent(BoundingBox.self, forKey: .bbox)
        )
    }

    /// Encodes the RFC 7946 object, `bbox` only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GeoJSONKey.self)
        try container.encode(GeoJSONType.point, forKey: .type)
        try container.encode(coordinates, forKey: .coordinates)
        try container.encodeIfPresent(bbox, forKey: .bbox)
    }
}
