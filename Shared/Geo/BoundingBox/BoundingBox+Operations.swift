import Foundation

extension BoundingBox {
    /// Whether `coordinate` lies inside the box or on its edge, across the antimeridian too.
    public func contains(_ coordinate: Coordinate) -> Bool {
        (south...north).contains(coordinate.latitude) && eastwardOffset(of: coordinate.longitude) <= longitudeSpan
    }

    /// Whether the two boxes share at least one point, edges included, across the antimeridian too.
    public func intersects(_ other: BoundingBox) -> Bool {
        guard south <= other.north, other.south <= north else { return false }
        // Two arcs of a circle overlap exactly when one of them starts inside the other.
        return eastwardOffset(of: other.west) <= longitudeSpan
            || other.eastwardOffset(of: west) <= other.longitudeSpan
    }

    /// The smallest box containing both boxes.
    ///
    /// Smallest in longitude too: the union of a box ending at 179° and one starting at −179° is
    /// 2° wide across the antimeridian, not 358° wide across Greenwich.
    public func union(_ other: BoundingBox) -> BoundingBox {
        // The narrowest covering arc starts at one of the two western edges.
        let fromSelf = max(longitudeSpan, eastwardOffset(of: other.west) + other.longitudeSpan)
        let fromOther = max(other.longitudeSpan, other.eastwardOffset(of: west) + longitudeSpan)
        let (start, span) = fromSelf <= fromOther ? (west, fromSelf) : (other.west, fromOther)
        let southEdge = min(south, other.south)
        let northEdge = max(north, other.north)
        guard span < 360 else {
            return BoundingBox(computedWest: -180, south: southEdge, east: 180, north: northEdge)
        }
        return BoundingBox(computedWest: start, south: southEdge, east: start + span, north: northEdge)
    }

    /// This box grown by `distance` metres on every side, so that it contains every point within
    /// `distance` of a point inside it — the prefilter for "paths within 500 m of here".
    ///
    /// Latitude grows by the same angle everywhere. Longitude grows by asin(sin(d / R) / cos φ)
    /// at the latitude φ of the edge nearest a pole, the widest reach of a circle of radius d there
    /// (J. P. Matuschek, "Finding Points Within a Distance of a Latitude/Longitude"). Reaching a pole,
    /// or wrapping all the way round, widens the box to every longitude.
    /// - Parameter distance: Metres on `Earth.meanRadius`; zero, negative or NaN returns the box
    ///   unchanged, and anything past half the circumference returns `.world`.
    public func expanded(by distance: Double) -> BoundingBox {
        guard distance > 0 else { return self }
        // Half a circumference reaches everywhere; clamping keeps the edges finite for huge inputs.
        let angle = min(distance / Earth.meanRadius, .pi)
        let southEdge = south - angle.degrees
        let northEdge = north + angle.degrees
        let polewardLatitude = max(abs(south), abs(north)).radians
        let reach = sin(min(angle, .pi / 2)) / cos(polewardLatitude)
        guard southEdge > -90, northEdge < 90, angle < .pi / 2, reach < 1 else {
            return BoundingBox(computedWest: -180, south: southEdge, east: 180, north: northEdge)
        }
        let deltaLongitude = asin(reach).degrees
        guard longitudeSpan + 2 * deltaLongitude < 360 else {
            return BoundingBox(computedWest: -180, south: southEdge, east: 180, north: northEdge)
        }
        return BoundingBox(
            computedWest: west - deltaLongitude,
            south: southEdge,
            east: east + deltaLongitude,
            north: northEdge
        )
    }

    /// Degrees eastwards from the west edge to `longitude`, 0..<360; −180 and 180 come out alike.
    func eastwardOffset(of longitude: Double) -> Double {
        let offset = (longitude - west).truncatingRemainder(dividingBy: 360)
        return offset < 0 ? offset + 360 : offset
    }
}
