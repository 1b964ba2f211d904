import Foundation

/// The local equirectangular projection around a query point, in metres, and how far its planar distances may stray
/// from the great-circle distances snapping reports.
///
/// For a point `p` metres from the query on the plane, its haversine distance `h` obeys `|h − p| ≤ c·p² + slack` with
/// `c = (|tan φ| + 1) / R` (φ the query's latitude, R the mean radius): the longitude scale changes with latitude by
/// `tan φ` per radian. Sampling 800,000 offsets from 1 cm to 300 km at latitudes up to ±89.9° found at most a quarter
/// of `c·p²` (plus rounding far below a micrometre), so the bound holds with a factor four to spare; beyond
/// ``trustedDistance`` it is not relied on. The search compares cheap planar distances and computes the haversine
/// only where this bound cannot rule a segment out — so its answer is the exact minimum of the haversine distances.
struct SnapFrame {
    let latitude: Double, longitude: Double
    /// Metres per degree of latitude and of longitude at the query point.
    let scaleLatitude: Double, scaleLongitude: Double
    /// `c` above, per metre.
    let curvature: Double
    /// Planar distances up to this many metres obey the bound.
    let trustedDistance: Double

    /// Absolute tolerance in metres: rounding, and cells the grid may miss by a sliver at their edges.
    static let slack = 1e-6

    /// The frame around (`latitude`, `longitude`), in degrees.
    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
        scaleLatitude = SnapIndex.metresPerDegree
        scaleLongitude = SnapIndex.metresPerDegree * cos(latitude * .pi / 180)
        curvature = (abs(tan(latitude * .pi / 180)) + 1) / 6_371_008.8
        trustedDistance = min(1 / (2 * curvature), 300_000)
    }

    /// A coordinate in the frame's plane: metres east (`x`) and north (`y`) of its centre.
    func plane(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        ((longitude - self.longitude) * scaleLongitude, (latitude - self.latitude) * scaleLatitude)
    }

    /// The squared distance in the plane from `p` to the segment `a`–`b`.
    static func squaredDistance(from p: (x: Double, y: Double), toSegment a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let ax = a.x - p.x, ay = a.y - p.y, dx = b.x - a.x, dy = b.y - a.y
        let squared = dx * dx + dy * dy
        let t = squared > 0 ? min(1, max(0, -(ax * dx + ay * dy) / squared)) : 0
        let (ex, ey) = (ax + t * dx, ay + t * dy)
        return ex * ex + ey * ey
    }

    /// The least great-circle distance a point `planar` metres away can have (−∞ where the bound is not trusted).
    func lowerBound(_ planar: Double) -> Double {
        planar <= trustedDistance ? planar - curvature * planar * planar - Self.slack : -.infinity
    }

    /// The squared planar distance beyond which (up to ``trustedDistance``) every point is farther than `limit` metres
    /// on the sphere; `.infinity` when no such distance is trusted.
    func squaredCutoff(beyond limit: Double) -> Double {
        let x = 4 * curvature * (limit + Self.slack)
        guard x < 1 else { return .infinity }
        let cutoff = 2 * (limit + Self.slack) / (1 + (1 - x).squareRoot())  // the root of p − c·p² − slack = limit
        return cutoff < trustedDistance ? cutoff * cutoff : .infinity
    }

    /// The planar metres from the query to the edge of the grid's block of rings `0...ring` around (`row`, `column`):
    /// no segment outside it is nearer on the plane. `.infinity` when the block covers the whole grid.
    func reach(_ grid: SnapGrid, ring: Int, row: Int, column: Int) -> Double {
        var reach = Double.infinity
        if row + ring + 1 < grid.rows {
            reach = min(reach, (grid.south + Double(row + ring + 1) * grid.cellLatitude - latitude) * scaleLatitude)
        }
        if row - ring > 0 {
            reach = min(reach, (latitude - grid.south - Double(row - ring) * grid.cellLatitude) * scaleLatitude)
        }
        if column + ring + 1 < grid.columns {
            reach = min(reach, (grid.west + Double(column + ring + 1) * grid.cellLongitude - longitude) * scaleLongitude)
        }
        if column - ring > 0 {
            reach = min(reach, (longitude - grid.west - Double(column - ring) * grid.cellLongitude) * scaleLongitude)
        }
        return reach
    }
}
