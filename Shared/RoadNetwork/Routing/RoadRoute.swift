/// A route on the road network: its pieces of edges in travel order, with totals.
public struct RoadRoute: Sendable, Hashable {
    /// One edge (or the part of it a route starts or ends on) travelled in one direction.
    public struct Segment: Sendable, Hashable {
        /// The edge in the graph.
        public var edge: Int
        /// Travelled target → source.
        public var reversed: Bool
        /// The OSM id of the edge's way.
        public var wayID: Int64
        /// The OSM nodes of the shape segments this piece runs along, in travel order (a piece starting mid-segment
        /// begins with that segment's first node; the pairs are the keys a ``CostOverlay`` uses).
        public var nodeIDs: [Int64]
        /// The geometry in travel order, cut at the snapped points on the first and last pieces.
        public var coordinates: [RoadPoint]
        /// Metres.
        public var distance: Double
        /// Seconds at the profile's speed for the way (overlays change weights, not speeds).
        public var duration: Double
        /// Equivalent metres under the profile and overlay.
        public var weight: Double
    }

    /// The pieces in travel order (legs through via points follow each other).
    public var segments: [Segment]
    /// Metres.
    public var distance: Double
    /// Seconds.
    public var duration: Double
    /// Equivalent metres: what the router minimises.
    public var weight: Double

    /// The whole route's geometry, each point once.
    public var geometry: [RoadPoint] {
        var points: [RoadPoint] = []
        for segment in segments {
            for point in segment.coordinates where points.last != point { points.append(point) }
        }
        return points
    }

    /// The OSM node sequence of the whole route, each node once where pieces meet.
    public var nodeIDs: [Int64] {
        var nodes: [Int64] = []
        for segment in segments {
            for node in segment.nodeIDs where nodes.last != node { nodes.append(node) }
        }
        return nodes
    }
}
