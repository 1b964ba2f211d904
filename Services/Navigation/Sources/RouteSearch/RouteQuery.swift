import Foundation
import RoadNetwork

/// A route search as the service runs it, parsed and checked (``RouteSearchRoutes`` builds it from the query string).
public struct RouteQuery: Sendable, Hashable {
    /// How geometries are written.
    public enum GeometryFormat: String, Sendable, Hashable, CaseIterable {
        /// Google's encoded polyline with 6 decimals (OSRM's `polyline6`), latitude first.
        case polyline6
        /// A GeoJSON LineString (RFC 7946, `[lng, lat]`).
        case geojson
    }

    /// Origin, via points and destination in order.
    public var points: [RoadPoint]
    /// Alternatives wanted besides the best route (0…2; with via points none are searched).
    public var alternatives: Int
    public var geometries: GeometryFormat
    /// Whether legs carry their steps.
    public var steps: Bool
    public var language: InstructionLanguage

    public init(points: [RoadPoint], alternatives: Int = 0, geometries: GeometryFormat = .polyline6, steps: Bool = false,
                language: InstructionLanguage = .en) {
        self.points = points
        self.alternatives = alternatives
        self.geometries = geometries
        self.steps = steps
        self.language = language
    }

    /// The most alternatives a search may ask for.
    public static let maximumAlternatives = 2

    /// `lat,lng` in range (NaN and infinities are out of range), `nil` otherwise.
    public static func point(_ text: some StringProtocol) -> RoadPoint? {
        RoadPoint(latLng: text)
    }
}
