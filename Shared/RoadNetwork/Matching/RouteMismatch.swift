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
