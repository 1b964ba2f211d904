/// A GeoJSON FeatureCollection (RFC 7946 §3.3): the usual body of a Waypoint response listing
/// tours, stops or paths on a map.
public struct FeatureCollection: Sendable, Hashable {
    /// The features, in document order.
    public var features: [Feature]
    /// Optional extent of all features (RFC 7946 §5).
    public var bbox: BoundingBox?

    /// Creates a collection of `features`.
    public init(_ features: [Feature], bbox: BoundingBox? = nil) {
        self.features = features
        self.bbox = bbox
    }
}

extension FeatureCollection: Codable {
    /// Decodes `{ "type": "FeatureCollection", "features": [ … ] }`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        try container.decodeType(.featureCollection)
        self.init(
            try container.decode([Feature].self, forKey: .features),
            bbox: try container.decodeIfPresent(BoundingBox.self, forKey: .bbox)
        )
    }

    /// Encodes the RFC 7946 object, `bbox` only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GeoJSONKey.self)
        try container.encode(GeoJSONType.featureCollection, forKey: .type)
        try container.encode(features, forKey: .features)
        try container.encodeIfPresent(bbox, forKey: .bbox)
    }
}
