import Foundation

/// A point of the unit sphere in Earth-centred Cartesian form (an "n-vector").
///
/// Projection onto long great-circle arcs is exact and free of special cases at the poles and the
/// antimeridian in vector form, which the degree-based formulas are not.
struct UnitVector: Sendable {
    var x: Double
    var y: Double
    var z: Double

    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The n-vector of `coordinate`.
    init(_ coordinate: Coordinate) {
        let lat = coordinate.latitude.radians
        let lng = coordinate.longitude.radians
        self.init(x: cos(lat) * cos(lng), y: cos(lat) * sin(lng), z: sin(lat))
    }

    /// The coordinate this vector points at; the vector need not be normalised.
    var coordinate: Coordinate {
        Coordinate(
            computedLatitude: atan2(z, (x * x + y * y).squareRoot()).degrees,
            longitude: atan2(y, x).degrees
        )
    }

    var length: Double { (x * x + y * y + z * z).squareRoot() }

    func dot(_ other: UnitVector) -> Double { x * other.x + y * other.y + z * other.z }

    func cross(_ other: UnitVector) -> UnitVector {
        UnitVector(
            x: y * other.z - z * other.y,
            y: z * other.x - x * other.z,
            z: x * other.y - y * other.x
        )
    }

    func scaled(by factor: Double) -> UnitVector { UnitVector(x: x * factor, y: y * factor, z: z * factor) }

    func minus(_ other: UnitVector) -> UnitVector { UnitVector(x: x - other.x, y: y - other.y, z: z - other.z) }

    /// Angle in radians between the two directions, accurate for tiny and for near-π angles alike.
    func angle(to other: UnitVector) -> Double { atan2(cross(other).length, dot(other)) }
}
