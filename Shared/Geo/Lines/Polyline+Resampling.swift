/// Points at equal distances along a line: where a rider moving at a steady speed is each second.
extension Polyline {
    /// Points every `metres` along the line (great-circle segments) from its start, its end last (unless the last
    /// point already lies within half a metre of it). Empty for an empty line.
    public func points(every metres: Double) -> [Coordinate] {
        var points: [Coordinate] = []
        var travelled = 0.0, next = 0.0
        for segment in segments {
            let length = segment.length
            let bearing = segment.start.initialBearing(to: segment.end)
            while length > 0, next <= travelled + length {
                points.append(segment.start.destination(bearing: bearing, distance: next - travelled))
                next += metres
            }
            travelled += length
        }
        if let last = coordinates.last, points.last.map({ $0.distance(to: last) > 0.5 }) ?? true { points.append(last) }
        return points
    }
}
