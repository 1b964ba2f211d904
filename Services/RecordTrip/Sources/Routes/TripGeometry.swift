import Foundation
import Geo
import RecordTripAnalysis
import RoadNetwork

/// The Geo conversions of trip responses and exports: GeoJSON (RFC 7946, `[lng, lat]`) and polyline6.
enum TripGeometry {
    /// Great-circle metres along `points` (invalid coordinates skipped).
    static func length(_ points: [Coordinate2D]) -> Double {
        polyline(points).length
    }

    static func polyline(_ points: [Coordinate2D]) -> Polyline {
        Polyline(points.compactMap { try? Coordinate(latitude: $0.latitude, longitude: $0.longitude) })
    }

    /// The pieces as one MultiLineString (pieces with fewer than two valid points left out); `nil` when none is left.
    static func multiLine(_ pieces: [[Coordinate2D]]) -> Geometry? {
        let lines = pieces.map { polyline($0).coordinates.map { Position($0) } }.filter { $0.count >= 2 }
        guard !lines.isEmpty, let multi = try? MultiLineString(lines) else { return nil }
        return .multiLineString(multi)
    }

    /// A point geometry, `nil` for an invalid coordinate.
    static func point(_ latitude: Double, _ longitude: Double) -> Geometry? {
        (try? Coordinate(latitude: latitude, longitude: longitude)).map { .point(Point(Position($0))) }
    }

    /// polyline6 of one piece.
    static func polyline6(_ points: [Coordinate2D]) -> String {
        polyline(points).encoded(precision: .six)
    }
}
