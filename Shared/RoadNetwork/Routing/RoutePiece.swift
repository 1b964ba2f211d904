/// A piece of an edge travelled from offset `from` to offset `to` (metres from the edge's source along its shape;
/// `from > to` travels it backwards): a whole edge, or the part a route starts or ends on.
struct RoutePiece: Sendable, Hashable {
    var edge: Int
    var from: Double
    var to: Double
    /// Equivalent metres under the weights the route was searched with.
    var weight: Double

    var reversed: Bool { from > to }
    /// The edge and direction, `edge << 1 | reversed`: how sharing between routes is counted.
    var key: Int { edge << 1 | (reversed ? 1 : 0) }

    /// The whole edge of the encoded search arc `arc` (`edge << 1 | reversed`). Inlined: a call copied the graph's
    /// arrays (a retain and release each) per arc.
    @inline(__always)
    init(graph: RoadGraph, weights: RoadWeights, arc: Int32) {
        edge = Int(arc >> 1)
        let reversed = arc & 1 == 1
        from = reversed ? graph.edgeLengths[edge] : 0
        to = reversed ? 0 : graph.edgeLengths[edge]
        weight = reversed ? weights.backward[edge] : weights.forward[edge]
    }

    init(edge: Int, from: Double, to: Double, weight: Double) {
        self.edge = edge
        self.from = from
        self.to = to
        self.weight = weight
    }
}

extension RoadGraph {
    /// The public segment of `piece`: its way, OSM nodes, geometry cut at the piece's offsets, distance and duration.
    /// One pass over the edge's shape: each shape segment's length is computed once (the cut points are interpolated
    /// as ``point(onEdge:at:)`` does, in the same pass).
    func segment(of piece: RoutePiece) -> RoadRoute.Segment {
        let low = min(piece.from, piece.to), high = max(piece.from, piece.to)
        let first = Int(edgeShapeStarts[piece.edge]), last = Int(edgeShapeStarts[piece.edge + 1]) - 1
        var nodes: [Int64] = []
        var inner: [RoadPoint] = []
        var lowPoint: RoadPoint?, highPoint: RoadPoint?
        var start = 0.0
        for index in first..<last {
            let length = segmentLength(index)
            let end = start + length
            if lowPoint == nil, low <= end || index == last - 1 { lowPoint = interpolated(index, start: start, length: length, at: low) }
            if highPoint == nil, high <= end || index == last - 1 { highPoint = interpolated(index, start: start, length: length, at: high) }
            if min(high, end) > max(low, start) || (low == high && start <= low && low <= end && nodes.isEmpty) {
                if nodes.isEmpty { nodes.append(shapeNodeIDs[index]) }
                nodes.append(shapeNodeIDs[index + 1])
            }
            if end > low, end < high, index + 1 < last {
                inner.append(RoadPoint(latitude: shapeLatitudes[index + 1], longitude: shapeLongitudes[index + 1]))
            }
            start = end
        }
        let shapeStart = RoadPoint(latitude: shapeLatitudes[first], longitude: shapeLongitudes[first])
        let points = [lowPoint ?? shapeStart] + inner + [highPoint ?? shapeStart]
        let use = ways.use(of: Int(edgeWays[piece.edge]))
        return RoadRoute.Segment(edge: piece.edge, reversed: piece.reversed, wayID: ways.osmIDs[Int(edgeWays[piece.edge])],
                                 nodeIDs: piece.reversed ? nodes.reversed() : nodes,
                                 coordinates: piece.reversed ? points.reversed() : points,
                                 distance: high - low, duration: (high - low) * use.secondsPerMetre, weight: piece.weight)
    }

    /// The point `offset` metres along `edge` from its source (interpolated within its shape segment).
    func point(onEdge edge: Int, at offset: Double) -> RoadPoint {
        let first = Int(edgeShapeStarts[edge]), last = Int(edgeShapeStarts[edge + 1]) - 1
        var start = 0.0
        for index in first..<last {
            let length = segmentLength(index)
            if offset <= start + length || index == last - 1 { return interpolated(index, start: start, length: length, at: offset) }
            start += length
        }
        return RoadPoint(latitude: shapeLatitudes[first], longitude: shapeLongitudes[first])
    }

    /// The point `offset` metres along the edge within shape segment `index`, which starts `start` metres along it and
    /// is `length` long (clamped to the segment).
    private func interpolated(_ index: Int, start: Double, length: Double, at offset: Double) -> RoadPoint {
        let t = length > 0 ? min(1, max(0, (offset - start) / length)) : 0
        return RoadPoint(latitude: shapeLatitudes[index] + t * (shapeLatitudes[index + 1] - shapeLatitudes[index]),
                         longitude: shapeLongitudes[index] + t * (shapeLongitudes[index + 1] - shapeLongitudes[index]))
    }

    /// A route of `pieces` (zero-length pieces left out), with totals.
    func route(of pieces: [RoutePiece]) -> RoadRoute {
        let segments = pieces.filter { $0.from != $0.to }.map(segment(of:))
        return RoadRoute(segments: segments, distance: segments.reduce(0) { $0 + $1.distance },
                         duration: segments.reduce(0) { $0 + $1.duration }, weight: pieces.reduce(0) { $0 + $1.weight })
    }
}
