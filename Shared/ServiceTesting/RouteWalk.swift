import Geo

/// A rider's positions along a route line, for tests that replay rides against the services.
public enum RouteWalk {
    /// Points every `metres` along `line` (great-circle segments), its end last.
    public static func points(along line: [Coordinate], every metres: Double) -> [Coordinate] {
        var points: [Coordinate] = []
        var ridden = 0.0, next = 0.0
        for (a, b) in zip(line, line.dropFirst()) {
            let length = a.distance(to: b)
            let bearing = a.initialBearing(to: b)
            while length > 0, next <= ridden + length {
                points.append(a.destination(bearing: bearing, distance: next - ridden))
                next += metres
            }
            ridden += length
        }
        if let last = line.last, points.last.map({ $0.distance(to: last) > 0.5 }) ?? true { points.append(last) }
        return points
    }

    /// A polyline6 string's coordinates (OSRM's `geometries=polyline6`).
    public static func decode(_ polyline6: String) throws -> [Coordinate] {
        try Polyline(encoded: polyline6, precision: .six).coordinates
    }
}
