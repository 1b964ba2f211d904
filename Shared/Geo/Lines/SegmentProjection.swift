/// Where a point meets a segment: the segment's nearest point to it and how far along that lies.
public struct SegmentProjection: Sendable, Hashable {
    /// The point of the segment nearest to the query point.
    public let point: Coordinate
    /// How far along the segment `point` lies, as a fraction of the segment's length: 0 at its
    /// start, 1 at its end.
    public let fraction: Double
    /// Great-circle distance in metres from the query point to `point`.
    public let distance: Double

    /// Creates a projection result; `Segment.projection(of:)` is the usual source.
    public init(point: Coordinate, fraction: Double, distance: Double) {
        self.point = point
        self.fraction = fraction
        self.distance = distance
    }
}
