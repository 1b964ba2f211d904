/// A GeoJSON GeometryCollection (RFC 7946 §3.1.8): geometries of any kinds, possibly none.
public struct GeometryCollection: Sendable, Hashable {
    /// The member geometries, in document order.
    public let geometries: [Geometry]
    /// Optional extent of the geometry (RFC 7946 §5).
    public let bbox: BoundingBox?

    /// Creates a collection of `geometries`.
    public init(_ geometries: [Geometry], bbox: BoundingBox? = nil) {
        self.geometries = geometries
        self.bbox = bbox
    }
}

extension GeometryCollection: Codable {
    /// Decodes `{ "type": "GeometryCollection", "geometries": [ … ] }`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        try container.decodeType(.geometryCollection)
        self.init(
            try container.decode([Geometry].self, forKey: .geometries),
            bbox: try container.decodeIfPresent(BoundingBox.self, forKey: .bbox)
        )
    }

    /// Encodes the RFC 7946 object, `bbox` only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GeoJSONKey.self)
        try container.encode(GeoJSONType.geometryCollection, forKey: .type)
        try container.encode(geometries, forKey: .geometries)
        try container.encodeIfPresent(bbox, forKey: .bbox)
    }
}
