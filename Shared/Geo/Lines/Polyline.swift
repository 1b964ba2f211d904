/// An ordered run of coordinates joined by great-circle segments: a recorded ride, a tour's walking
/// line, an approved bike path.
///
/// Any number of coordinates is allowed, including none, so traces can be built up fix by fix;
/// GeoJSON's stricter `LineString` is the wire form.
public struct Polyline: Sendable, Hashable {
    /// The vertices, in travel order.
    public var coordinates: [Coordinate]

    /// Creates a polyline through `coordinates` in order.
    public init(_ coordinates: [Coordinate]) {
        self.coordinates = coordinates
    }

    /// The segments between consecutive coordinates, in travel order; empty for fewer than two.
    public var segments: some Sequence<Segment> {
        zip(coordinates, coordinates.dropFirst()).lazy.map { Segment(from: $0, to: $1) }
    }

    /// Total length in metres: the sum of the great-circle lengths of the segments on
    /// `Earth.meanRadius`; 0 for fewer than two coordinates.
    public var length: Double {
        segments.reduce(0) { $0 + $1.length }
    }
}
