/// A GeoJSON Feature (RFC 7946 §3.2): a geometry with an identifier and free-form properties —
/// a tour stop, a path with its condition, an obstacle report.
public struct Feature: Sendable, Hashable {
    /// Optional identifier, string or number.
    public var id: FeatureID?
    /// The shape; nil for an unlocated feature (`"geometry": null`).
    public var geometry: Geometry?
    /// Free-form attributes; nil is `"properties": null`.
    public var properties: [String: JSONValue]?
    /// Optional extent of the feature (RFC 7946 §5).
    public var bbox: BoundingBox?

    /// Creates a feature.
    public init(
        id: FeatureID? = nil,
        geometry: Geometry?,
        properties: [String: JSONValue]? = nil,
        bbox: BoundingBox? = nil
    ) {
        self.id = id
        self.geometry = geometry
        self.properties = properties
        self.bbox = bbox
    }
}

extension Feature: Codable {
    /// Decodes `{ "type": "Feature", "geometry": …, "properties": …, "id"?: … }`.
    ///
    /// A missing `geometry` or `properties` member reads as null: RFC 7946 requires writers to
    /// include them, but rejecting a body for it would help nobody. Foreign members are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        try container.decodeType(.feature)
        self.init(
            id: try container.decodeIfPresent(FeatureID.self, forKey: .id),
            geometry: try container.decodeIfPresent(Geometry.self, forKey: .geometry),
            properties: try container.decodeIfPresent([String: JSONValue].self, forKey: .properties),
            bbox: try container.decodeIfPresent(BoundingBox.self, forKey: .bbox)
        )
    }

    /// Encodes the RFC 7946 object; `geometry` and `properties` are always written, as null when
    /// absent, because the RFC requires both members.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GeoJSONKey.self)
        try container.encode(GeoJSONType.feature, forKey: .type)
        try container.encodeIfPresent(id, forKey: .id)
        // encode(Optional) writes null for nil, where encodeIfPresent would leave the member out.
        try container.encode(geometry, forKey: .geometry)
        try container.encode(properties, forKey: .properties)
        try container.encodeIfPresent(bbox, forKey: .bbox)
    }
}
