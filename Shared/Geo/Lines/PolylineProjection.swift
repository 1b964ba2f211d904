/// Where a point meets a polyline: the line's nearest point to it, which segment holds that point,
/// and how far along the line it lies.
public struct PolylineProjection: Sendable, Hashable {
    /// The point of the polyline nearest to the query point.
    public let point: Coordinate
    /// Index into `Polyline.coordinates` of the start of the segment holding `point`.
    public let segmentIndex: Int
    /// How far along that segment `point` lies, 0 at its start and 1 at its end.
    public let fraction: Double
    /// Great-circle distance in metres from the query point to `point`.
    public let distance: Double
    /// Metres along the polyline from its first coordinate to `point`.
    public let distanceAlong: Double

    /// Creates a projection result; `Polyline.projection(of:)` is the usual source.
    public init(point: Coordinate, segmentIndex: Int, fraction: Double, distance: Double, distanceAlong: Double) {
        self.point = point
        self.segmentIndex = segmentIndex
        self.fraction = fraction
        self.distance = distance
        self.distanceAlong = distanceAlong
    }
}
