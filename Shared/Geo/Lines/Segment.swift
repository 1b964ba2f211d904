/// The shortest great-circle arc between two coordinates: one leg of a path, a ride or a tour line.
public struct Segment: Sendable, Hashable {
    /// Where the segment begins.
    public var start: Coordinate
    /// Where the segment ends.
    public var end: Coordinate

    /// Creates the segment from `start` to `end`.
    public init(from start: Coordinate, to end: Coordinate) {
        self.start = start
        self.end = end
    }

    /// Great-circle length in metres on `Earth.meanRadius`.
    public var length: Double { start.distance(to: end) }
}
