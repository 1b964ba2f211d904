/// Any GeoJSON document (RFC 7946 §3): a geometry, a feature or a feature collection — for
/// uploads where the client may send any of the three.
public enum GeoJSONObject: Sendable, Hashable {
    /// A bare geometry.
    case geometry(Geometry)
    /// A single feature.
    case feature(Feature)
    /// A collection of features.
    case featureCollection(FeatureCollection)
}

extension GeoJSONObject: Codable {
    /// Decodes whichever object the `type` member names; an unknown `type` fails with
    /// `GeoJSONError.unexpectedType`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: GeoJSONKey.self)
        switch try container.decode(String.self, forKey: .type) {
        case GeoJSONType.feature.rawValue: self = .feature(try Feature(from: decoder))
        case GeoJSONType.featureCollection.rawValue: self = .featureCollection(try FeatureCollection(from: decoder))
        default: self = .geometry(try Geometry(from: decoder))
        }
    }

    /// Encodes the wrapped object.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .geometry(let geometry): try geometry.encode(to: encoder)
        case .feature(let feature): try feature.encode(to: encoder)
        case .featureCollection(let collection): try collection.encode(to: encoder)
        }
    }
}
