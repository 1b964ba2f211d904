/// A GeoJSON MultiPolygon (RFC 7946 §3.1.7): several polygons, possibly none.
public struct MultiPolygon: Sendable, Hashable {
    /// The polygons, each as its rings with the exterior first.
    public let coordinates: [[[Position]]]
    /// Optional extent of the geometry (RFC 7946 §5).
    public let bbox: BoundingBox?

    /// Creates a multi-polygon of `coordinates`.
    /// - Throws: the first `GeoJSONError` any of its polygons would throw.
    public init(_ coordinates: [[[Position]]], bbox: BoundingBox? = nil) throws(GeoJSONError) {
        for polygon in coordinates { try Polygon.validate(polygon) }
        self.coordinates = coordinates
        self.bbox = bbox
    }
}

extension MultiPolygon: Codable {
    /// Decodes `{ "type": "MultiPolygon", "coordinates": [[[[lng, lat], …], …], …] }`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        try container.decodeType(.multiPolygon)
        let coordinates = try container.decode([[[Position]]].self, forKey: .coordinates)
        let bbox = try container.decodeIfPresent(BoundingBox.self, forKey: .bbox)
        self = try container.validated(at: .coordinates) { () throws(GeoJSONError) in
            try MultiPolygon(coordinates, bbox: bbox)
        }
    }

    /// Encodes the RFC 7946 object, `bbox` only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GeoJSONKey.self)
        try container.encode(GeoJSONType.multiPolygon, forKey: .type)
        try container.encode(coordinates, forKey: .coordinates)
        try container.encodeIfPresent(bbox, forKey: .bbox)
    }
}
