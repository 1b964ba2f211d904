/// A latitude–longitude rectangle: everything between two parallels and two meridians.
///
/// The box runs eastwards from its west edge to its east edge. When `west > east` it crosses the
/// antimeridian — Fiji, the Bering Strait — and covers `west…180` plus `−180…east`, as RFC 7946 §5.2
/// specifies. A box from −180 to 180 spans every longitude.
public struct BoundingBox: Sendable, Hashable {
    /// The south-west corner: southern edge latitude and western edge longitude, in degrees.
    public let southWest: Coordinate
    /// The north-east corner: northern edge latitude and eastern edge longitude, in degrees.
    public let northEast: Coordinate

    /// Creates the box between two corners.
    ///
    /// A western longitude greater than the eastern one is allowed and means the box crosses the
    /// antimeridian; a southern latitude greater than the northern one is not.
    /// - Throws: `BoundingBoxError.southAboveNorth`.
    public init(southWest: Coordinate, northEast: Coordinate) throws(BoundingBoxError) {
        guard southWest.latitude <= northEast.latitude else {
            throw .southAboveNorth(south: southWest.latitude, north: northEast.latitude)
        }
        self.southWest = southWest
        self.northEast = northEast
    }

    /// Validates four edges, in degrees, given in GeoJSON/`?bbox=` order.
    init(west: Double, south: Double, east: Double, north: Double) throws(BoundingBoxError) {
        let southWest: Coordinate
        let northEast: Coordinate
        do {
            southWest = try Coordinate(latitude: south, longitude: west)
            northEast = try Coordinate(latitude: north, longitude: east)
        } catch {
            throw .invalidCorner(error)
        }
        try self.init(southWest: southWest, northEast: northEast)
    }

    /// Builds a box from edges computed by Geo itself: latitudes are clamped, and longitudes wrapped
    /// so that a west edge lands in −180..<180 and an east edge in −180<..180 — a box ending exactly
    /// on the antimeridian keeps `east == 180` instead of wrapping to a confusing −180.
    init(computedWest west: Double, south: Double, east: Double, north: Double) {
        let wrappedEast = normalizedLongitude(east)
        self.southWest = Coordinate(computedLatitude: min(south, north), longitude: west)
        self.northEast = Coordinate(
            computedLatitude: max(south, north),
            longitude: wrappedEast == -180 ? 180 : wrappedEast,
            keepingLongitude: true
        )
    }

    /// The box covering the whole Earth.
    public static let world = BoundingBox(computedWest: -180, south: -90, east: 180, north: 90)

    /// Latitude of the southern edge in degrees.
    public var south: Double { southWest.latitude }
    /// Longitude of the western edge in degrees.
    public var west: Double { southWest.longitude }
    /// Latitude of the northern edge in degrees.
    public var north: Double { northEast.latitude }
    /// Longitude of the eastern edge in degrees.
    public var east: Double { northEast.longitude }

    /// Whether the box crosses the antimeridian, i.e. its western edge lies east of its eastern edge.
    public var crossesAntimeridian: Bool { west > east }

    /// Width in degrees of longitude, measured eastwards from the west edge: 0…360.
    var longitudeSpan: Double { crossesAntimeridian ? east + 360 - west : east - west }
}
