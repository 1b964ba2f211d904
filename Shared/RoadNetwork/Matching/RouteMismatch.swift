import Foundation

/// Route mismatch fraction (RMF, Newson & Krumm's measure): (length wrongly added + length wrongly missed) ÷ true
/// length, on directed OSM node pairs — the identity of a street piece (DESIGN). A pair ridden twice counts once.
public enum RouteMismatch {
    /// The directed pairs of consecutive nodes of every sequence.
    public static func pairs(_ sequences: [[Int64]]) -> Set<CostOverlay.NodePair> {
        var pairs = Set<CostOverlay.NodePair>()
        for nodes in sequences where nodes.count > 1 {
            for k in 1..<nodes.count where nodes[k - 1] != nodes[k] { pairs.insert(.init(from: nodes[k - 1], to: nodes[k])) }
        }
        return pairs
    }

    /// The RMF of the `matched` node sequences against the `truth` sequences, `length` giving each pair's metres;
    /// 0 when both are empty, infinite when only the truth is.
    public static func fraction(truth: [[Int64]], matched: [[Int64]], length: (CostOverlay.NodePair) -> Double) -> Double {
        let truePairs = pairs(truth), matchedPairs = pairs(matched)
        let trueLength = truePairs.reduce(0) { $0 + length($1) }
        let added = matchedPairs.subtracting(truePairs).reduce(0) { $0 + length($1) }
        let missed = truePairs.subtracting(matchedPairs).reduce(0) { $0 + length($1) }
        guard trueLength > 0 else { return added + missed > 0 ? .infinity : 0 }
        return (added + missed) / trueLength
    }
}

extension RouteMismatch {
    /// A geometric mismatch beside the RMF: the length of the matched lines farther than `tolerance` metres from the
    /// truth's line, plus the length of the truth's line farther than `tolerance` from every matched line, over the
    /// truth's length (lines walked in steps of at most 1 m, each step's midpoint measured to the nearest segment in
    /// a local plane around the truth's start). Unlike the RMF it does not count one way matched in place of another
    /// within `tolerance` of it — a cycleway mapped both as a way of its own and as a tag of the road beside it, a
    /// sidewalk drawn 5 m from its street — which fixes with metres of noise cannot tell apart (docs/road-network.md,
    /// "The prior"). 0 when both are empty, infinite when only the truth is.
    public static func beyond(tolerance: Double, truth: [RoadPoint], matched: [[RoadPoint]]) -> Double {
        guard let origin = truth.first ?? matched.first(where: { !$0.isEmpty })?.first else { return 0 }
        let frame = SnapFrame(latitude: origin.latitude, longitude: origin.longitude)
        func plane(_ line: [RoadPoint]) -> [(x: Double, y: Double)] { line.map { frame.plane(latitude: $0.latitude, longitude: $0.longitude) } }
        func near(_ p: (x: Double, y: Double), _ line: [(x: Double, y: Double)]) -> Bool {
            let squared = tolerance * tolerance
            guard line.count > 1 else { return line.first.map { SnapFrame.squaredDistance(from: p, toSegment: $0, $0) <= squared } ?? false }
            return line.indices.dropFirst().contains { SnapFrame.squaredDistance(from: p, toSegment: line[$0 - 1], line[$0]) <= squared }
        }
        /// Metres of `line` farther than the tolerance from all of `others`, and its whole length.
        func far(_ line: [(x: Double, y: Double)], from others: [[(x: Double, y: Double)]]) -> (far: Double, length: Double) {
            var (far, length) = (0.0, 0.0)
            for k in line.indices.dropFirst() {
                let piece = ((line[k].x - line[k - 1].x) * (line[k].x - line[k - 1].x) + (line[k].y - line[k - 1].y) * (line[k].y - line[k - 1].y)).squareRoot()
                let steps = max(Int(piece.rounded(.up)), 1)
                for step in 0..<steps {
                    let t = (Double(step) + 0.5) / Double(steps)
                    let p = (x: line[k - 1].x + t * (line[k].x - line[k - 1].x), y: line[k - 1].y + t * (line[k].y - line[k - 1].y))
                    if !others.contains(where: { near(p, $0) }) { far += piece / Double(steps) }
                }
                length += piece
            }
            return (far, length)
        }
        let truthLine = plane(truth), matchedLines = matched.map(plane)
        let (missed, length) = far(truthLine, from: matchedLines)
        let added = matchedLines.reduce(0.0) { $0 + far($1, from: [truthLine]).far }
        guard length > 0 else { return added > 0 ? .infinity : 0 }
        return (missed + added) / length
    }
}

extension RoadRouter {
    /// Metres of the shape segment joining two consecutive OSM nodes of a way, in either direction; `nil` when the
    /// graph has no such segment.
    public func segmentLength(_ pair: CostOverlay.NodePair) -> Double? {
        locator.segments(pair).first.map { graph.segmentLength($0.point) }
    }

    /// The RMF of `matched` against `truth` with this graph's segment lengths (a pair it lacks counts 0 m).
    public func routeMismatch(truth: [[Int64]], matched: [[Int64]]) -> Double {
        RouteMismatch.fraction(truth: truth, matched: matched) { segmentLength($0) ?? 0 }
    }
}
