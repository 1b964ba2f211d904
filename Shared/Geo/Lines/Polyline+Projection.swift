extension Polyline {
    /// The point of this polyline nearest to `point`, with its segment, the distance in metres to
    /// it and the distance in metres along the line up to it; nil for an empty polyline.
    ///
    /// A single-coordinate polyline projects everything onto that coordinate (segment 0, fraction 0).
    /// When two segments are equally near — at a shared vertex, or a line that doubles back — the
    /// earlier one wins, so progress along a tour line never jumps ahead on a tie.
    public func projection(of point: Coordinate) -> PolylineProjection? {
        guard let first = coordinates.first else { return nil }
        var best = PolylineProjection(
            point: first, segmentIndex: 0, fraction: 0, distance: point.distance(to: first), distanceAlong: 0
        )
        var travelled = 0.0
        for (index, segment) in segments.enumerated() {
            let candidate = segment.projection(of: point)
            if index == 0 || candidate.distance < best.distance {
                best = PolylineProjection(
                    point: candidate.point,
                    segmentIndex: index,
                    fraction: candidate.fraction,
                    distance: candidate.distance,
                    // Measured to the foot point rather than fraction × length, so it is exact on the sphere.
                    distanceAlong: travelled + segment.start.distance(to: candidate.point)
                )
            }
            travelled += segment.length
        }
        return best
    }
}
