import Foundation

// Spherical trigonometry after Chris Veness, "Calculate distance, bearing and more between
// Latitude/Longitude points" (Movable Type Scripts), which is also what the tests check against.
extension Coordinate {
    /// Great-circle distance in metres from this coordinate to `other`.
    ///
    /// Uses the haversine formula, which stays accurate for points a few metres apart where the
    /// spherical law of cosines loses precision.
    /// - Parameter radius: Sphere radius in metres; defaults to `Earth.meanRadius`. Pass another
    ///   value only to reproduce a reference computed on a different sphere (or `1` for radians).
    public func distance(to other: Coordinate, radius: Double = Earth.meanRadius) -> Double {
        let lat1 = latitude.radians
        let lat2 = other.latitude.radians
        let halfDeltaLat = (other.latitude - latitude).radians / 2
        let halfDeltaLng = (other.longitude - longitude).radians / 2
        let a = sin(halfDeltaLat) * sin(halfDeltaLat)
            + cos(lat1) * cos(lat2) * sin(halfDeltaLng) * sin(halfDeltaLng)
        // Rounding can push `a` a hair above 1 for antipodal points; sqrt(1 - a) must stay real.
        let clamped = min(1, max(0, a))
        return radius * 2 * atan2(clamped.squareRoot(), (1 - clamped).squareRoot())
    }

    /// Initial bearing in degrees clockwise from true north, 0..<360, of the great circle from this
    /// coordinate to `other`.
    ///
    /// Along a great circle the heading changes as you travel; this is the heading at the start.
    /// The bearing to the same point is 0.
    public func initialBearing(to other: Coordinate) -> Double {
        let lat1 = latitude.radians
        let lat2 = other.latitude.radians
        let deltaLng = (other.longitude - longitude).radians
        let y = sin(deltaLng) * cos(lat2)
        let x = cos(lat1) * sin(lat2) - sin(lat1) * cos(lat2) * cos(deltaLng)
        return normalizedBearing(atan2(y, x).degrees)
    }

    /// The coordinate reached by travelling `distance` metres along the great circle that leaves
    /// this coordinate on `bearing` degrees clockwise from true north.
    ///
    /// The result's longitude is normalised to −180..<180, so a path across the antimeridian is fine.
    /// - Parameters:
    ///   - bearing: Initial heading in degrees; any finite value, taken modulo 360.
    ///   - distance: Metres to travel; negative travels backwards along the same great circle.
    ///   - radius: Sphere radius in metres; defaults to `Earth.meanRadius`.
    /// - Precondition: `bearing` and `distance` are finite and `radius` is positive; HTTP input
    ///   cannot violate this, since JSON has no NaN or infinity.
    public func destination(
        bearing: Double,
        distance: Double,
        radius: Double = Earth.meanRadius
    ) -> Coordinate {
        precondition(bearing.isFinite && distance.isFinite, "bearing and distance must be finite")
        precondition(radius > 0 && radius.isFinite, "radius must be a positive number of metres")
        let angularDistance = distance / radius
        let heading = bearing.radians
        let lat1 = latitude.radians
        let sinLat2 = sin(lat1) * cos(angularDistance)
            + cos(lat1) * sin(angularDistance) * cos(heading)
        let lat2 = asin(min(1, max(-1, sinLat2)))
        let deltaLng = atan2(
            sin(heading) * sin(angularDistance) * cos(lat1),
            cos(angularDistance) - sin(lat1) * sinLat2
        )
        return Coordinate(computedLatitude: lat2.degrees, longitude: longitude + deltaLng.degrees)
    }

    /// The point halfway along the great circle from this coordinate to `other`.
    ///
    /// Halfway is by distance along the great circle, not the average of the degrees, so it is
    /// right across the antimeridian and at high latitudes. For antipodal points every great circle
    /// is shortest and the result is one arbitrary choice among them.
    public func midpoint(to other: Coordinate) -> Coordinate {
        let lat1 = latitude.radians
        let lat2 = other.latitude.radians
        let deltaLng = (other.longitude - longitude).radians
        let bx = cos(lat2) * cos(deltaLng)
        let by = cos(lat2) * sin(deltaLng)
        let latM = atan2(sin(lat1) + sin(lat2), ((cos(lat1) + bx) * (cos(lat1) + bx) + by * by).squareRoot())
        let lngM = longitude.radians + atan2(by, cos(lat1) + bx)
        return Coordinate(computedLatitude: latM.degrees, longitude: lngM.degrees)
    }
}
