/// A stretch of one edge ridden in one direction, from `from` to `to` metres along the direction of travel: the
/// building block of a matched piece's node sequence and geometry.
struct MatchedTravel {
    var edge: Int
    var reversed: Bool
    var from: Double
    var to: Double

    /// Metres ridden.
    var length: Double { max(to - from, 0) }
}

extension RoadGraph {
    /// The shape of `edge` in the direction of travel: shape point indexes and metres from the edge's start to each.
    func travelShape(of edge: Int, reversed: Bool) -> (points: [Int], positions: [Double]) {
        let start = Int(edgeShapeStarts[edge]), end = Int(edgeShapeStarts[edge + 1])
        let points = reversed ? Array((start..<end).reversed()) : Array(start..<end)
        var positions = [0.0]
        for k in 1..<points.count {
            positions.append(positions[k - 1] + RoadGraphBuilder.distance((shapeLatitudes[points[k - 1]], shapeLongitudes[points[k - 1]]),
                                                                          (shapeLatitudes[points[k]], shapeLongitudes[points[k]])))
        }
        return (points, positions)
    }

    /// The point `position` metres along the travel shape (clamped to its ends), interpolated linearly in degrees
    /// within its segment.
    func point(at position: Double, on shape: (points: [Int], positions: [Double])) -> Coordinate2D {
        let (points, positions) = shape
        guard points.count > 1 else { return Coordinate2D(latitude: shapeLatitudes[points[0]], longitude: shapeLongitudes[points[0]]) }
        var k = 0
        while k < points.count - 2 && positions[k + 1] < position { k += 1 }
        let span = positions[k + 1] - positions[k]
        let t = span > 0 ? min(max((position - positions[k]) / span, 0), 1) : 0
        let a = points[k], b = points[k + 1]
        return Coordinate2D(latitude: shapeLatitudes[a] + (shapeLatitudes[b] - shapeLatitudes[a]) * t,
                            longitude: shapeLongitudes[a] + (shapeLongitudes[b] - shapeLongitudes[a]) * t)
    }

    /// Appends the OSM nodes of the shape segments `travel` covers (a stretch starting or ending inside a segment
    /// takes the whole segment's nodes, as a route's pieces do; a stretch of no length, its segment's) and its
    /// geometry from `from` to `to`, skipping a node or point equal to the last one appended.
    func append(_ travel: MatchedTravel, nodes: inout [Int64], geometry: inout [Coordinate2D]) {
        let shape = travelShape(of: travel.edge, reversed: travel.reversed)
        let (points, positions) = shape
        let (from, to) = (travel.from, max(travel.to, travel.from))
        var covered: [Int] = []
        for k in 0..<(points.count - 1) where min(positions[k + 1], to) - max(positions[k], from) > 0 { covered.append(k) }
        if covered.isEmpty {
            let k = (0..<(points.count - 1)).first { positions[$0 + 1] >= from } ?? max(points.count - 2, 0)
            covered = points.count > 1 ? [k] : []
        }
        for k in covered {
            for node in [shapeNodeIDs[points[k]], shapeNodeIDs[points[k + 1]]] where nodes.last != node { nodes.append(node) }
        }
        var stretch = [point(at: from, on: shape)]
        for k in points.indices where positions[k] > from && positions[k] < to {
            stretch.append(Coordinate2D(latitude: shapeLatitudes[points[k]], longitude: shapeLongitudes[points[k]]))
        }
        stretch.append(point(at: to, on: shape))
        for point in stretch where geometry.last != point { geometry.append(point) }
    }
}
