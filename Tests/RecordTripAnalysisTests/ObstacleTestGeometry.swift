import Geo

/// Distances for the obstacle tests, through Geo (the same great circle the detector uses).
enum ObstacleTestGeometry {
    static func metres(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        guard let a = try? Coordinate(latitude: lat1, longitude: lng1),
              let b = try? Coordinate(latitude: lat2, longitude: lng2) else { return .infinity }
        return a.distance(to: b)
    }
}
