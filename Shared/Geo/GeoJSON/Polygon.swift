/// A GeoJSON Polygon (RFC 7946 §3.1.6): an exterior linear ring followed by any number of holes —
/// a destination's area, a no-cycling zone.
///
/// Winding order is not enforced: RFC 7946 asks writers for counter-clockwise exteriors but tells
/// parsers not to reject the other orientation, which many older tools still produce.
public struct Polygon: Sendable, Hashable {
    /// The linear rings: exterior first, then holes. Each has at least four positions and ends where
    /// it starts.
    public let coordinates: [[Position]]
    /// Optional extent of the geometry (RFC 7946 §5).
    public let bbox: BoundingBox?

    /// Creates a polygon from its rings, exterior first.
    /// - Throws: `GeoJSONError.missingExteriorRing`, `.tooFewPositions` or `.unclosedRing`.
    public init(_ coordinates: [[Position]], bbox: BoundingBox? = nil) throws(GeoJSONError) {
        try Self.validate(coordinates)
        self.coordinates = coordinates
        self.bbox = bbox
    }

    /// The boundary ring.
    public var exteriorRing: [Position] { coordinates[0] }

    /// The rings cut out of the exterior, possibly none.
    public var holes: ArraySlice<[Position]> { coordinates.dropFirst() }

    /// Checks the RFC 7946 rules for a polygon's rings; shared with `MultiPolygon`.
    static func validate(_ rings: [[Position]]) throws(GeoJSONError) {
        guard !rings.isEmpty else { throw .missingExteriorRing }
        for ring in rings {
            guard ring.count >= 4 else { throw .tooFewPositions(minimum: 4, found: ring.count) }
            guard ring.first == ring.last else { throw .unclosedRing }
        }
    }
}

extension Polygon: Codable {
    /// Decodes `{ "type": "Polygon", "coordinates": [[[lng, lat], …], …] }`, rejecting open or
    /// too-short rings.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        try container.decodeType(.polygon)
        let coordinates = try container.decode([[Position]].self, forKey: .coordinates)
        let bbox = try container.decodeIfPresent(BoundingBox.self, forKey: .bbox)
        self = try container.validated(at: .coordinates) { () throws(GeoJSONError) in
            try Polygon(coordinates, bbox: bbox)
        }
    }

    /// Encodes the RFC 7946 object, `bbox` only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: GeoJSONKey.self)
        try container.encode(GeoJSONType.polygon, forKey: .type)
        try container.encode(coordinates, forKey: .coordinates)
        try container.encodeIfPresent(bbox, forKey: .bbox)
    }
}
