/// A GeoJSON MultiPoint (RFC 7946 §3.1.3): an unordered set of positions, possibly empty.
public struct MultiPoint: Sendable, Hashable {
    /// The positions.
    public let coordinates: [Position]
    /// Optional extent of the geometry (RFC 7946 §5).
    public let bbox: BoundingBox?

    /// Creates a multi-point of `coordinates`.
    public init(_ coordinates: [Position], bbox: BoundingBox? = nil) {
        self.coordinates = coordinates
        self.bbox = bbox
    }
}

extension MultiPoint: Codable {
    /// Decodes `{ "type": "MultiPoint", "coordinates": [[lng, lat], …] }`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        try container.decodeType(.multiPoint)
        self.init(
            try container.decode([Position].self, forKey: .coordinates),
            bbox: try container.decodeIfPresent(BoundingBox.self, forKey: .bbox)
        )
    }

    /// Encodes the RFC 7946 object, `bbox` only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GeoJSONKey.self)
        try container.encode(GeoJSONType.multiPoint, forKey: .type)
        try container.encode(coordinates, forKey: .coordinates)
        try container.encodeIfPresent(bbox, forKey: .bbox)
    }
}
