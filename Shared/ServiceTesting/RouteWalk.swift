import Geo

/// A rider's positions along a route line, for tests that replay rides against the services.
public enum RouteWalk {
    /// Points every `metres` along `line`, its end last (Geo's `Polyline.points(every:)`).
    public static func points(along line: [Coordinate], every metres: Double) -> [Coordinate] {
        Polyline(line).points(every: metres)
    }

    /// A polyline6 string's coordinates (OSRM's `geometries=polyline6`).
    public static func decode(_ polyline6: String) throws -> [Coordinate] {
        try Polyline(encoded: polyline6, precision: .six).coordinates
    }
}
