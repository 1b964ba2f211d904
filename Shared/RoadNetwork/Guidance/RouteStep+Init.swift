extension RouteManeuver {
    /// A maneuver with every value given (steps stored outside the library, e.g. in a navigation session's events).
    public static func stored(kind: Kind, modifier: Modifier?, location: RoadPoint, bearingBefore: Int, bearingAfter: Int,
                              exit: Int? = nil) -> RouteManeuver {
        RouteManeuver(kind: kind, modifier: modifier, location: location, bearingBefore: bearingBefore, bearingAfter: bearingAfter, exit: exit)
    }
}

extension RouteStep {
    /// A step with every value given.
    public static func stored(maneuver: RouteManeuver, name: String, ref: String?, wayClass: String, distance: Double, duration: Double,
                              weight: Double, geometry: [RoadPoint], roundaboutName: String? = nil) -> RouteStep {
        RouteStep(maneuver: maneuver, name: name, ref: ref, wayClass: wayClass, distance: distance, duration: duration, weight: weight,
                  geometry: geometry, roundaboutName: roundaboutName)
    }
}
