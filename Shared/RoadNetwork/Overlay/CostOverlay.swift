/// Run-time changes to edge weights, keyed by a directed pair of consecutive OSM nodes: how approved paths, reported
/// conditions and obstacles reach routing without rebuilding the graph.
///
/// A pair (from, to) adjusts the weight of riding the OSM segment from node `from` to node `to` (and not the other
/// way: add the reverse pair for both). Under the overlay a segment weighs `segment weight × factor + penalty`, the
/// penalty in metres counted as equivalent metres (a metre of neutral road at the profile's reference speed, see
/// ``BikeProfile``). Factors are at least ``minimumFactor`` (0.5: an approved path in good condition may be cheaper
/// than its way's class says) and penalties at least 0. The router scales its landmark bounds, computed on the base
/// weights, by the overlay's smallest factor when it is below 1 (``boundScale``), so they stay admissible under every
/// overlay (`docs/road-network.md`, "Cost overlay").
///
/// An immutable value: build a new one to change conditions, resolve it against a graph with
/// ``RoadRouter/weights(for:)`` and swap the resolved ``RoadWeights`` in one assignment.
public struct CostOverlay: Sendable, Hashable {
    /// A directed pair of consecutive OSM nodes along a way.
    public struct NodePair: Sendable, Hashable, Comparable {
        /// The OSM node the segment is ridden from.
        public var from: Int64
        /// The OSM node it is ridden to.
        public var to: Int64

        /// The segment ridden from `from` to `to`.
        public init(from: Int64, to: Int64) {
            self.from = from
            self.to = to
        }

        /// Ordered by `from`, then `to` (deterministic listing).
        public static func < (a: NodePair, b: NodePair) -> Bool { (a.from, a.to) < (b.from, b.to) }
    }

    /// How a segment's weight changes.
    public struct Adjustment: Sendable, Hashable {
        /// Multiplies the segment's weight; at least ``CostOverlay/minimumFactor`` (above 1: a surface in bad
        /// condition, a blocked lane; below 1: an approved path in good condition).
        public var factor: Double
        /// Added to the segment's weight, in metres (equivalent metres); at least 0 (an obstacle, a gate).
        public var penalty: Double

        /// An adjustment; ``CostOverlay/init(_:)`` checks the bounds.
        public init(factor: Double = 1, penalty: Double = 0) {
            self.factor = factor
            self.penalty = penalty
        }
    }

    /// The adjustments, one per directed pair.
    public let adjustments: [NodePair: Adjustment]

    /// The smallest factor an overlay may use: a segment can at most halve in weight.
    public static let minimumFactor = 0.5

    /// What the landmark bounds (on base weights) are multiplied by under this overlay: its smallest factor when
    /// below 1, else 1. Every edge weighs at least that share of its base weight, so the scaled bound stays a lower
    /// bound.
    public let boundScale: Double

    /// No adjustment: the profile's weights.
    public static let empty = CostOverlay()

    private init() {
        adjustments = [:]
        boundScale = 1
    }

    /// An overlay of `adjustments`. Throws ``CostOverlayError`` for a factor below ``minimumFactor`` or not finite, a
    /// penalty below 0 or not finite, or a pair of one node with itself.
    public init(_ adjustments: [NodePair: Adjustment]) throws(CostOverlayError) {
        for (pair, adjustment) in adjustments {
            guard pair.from != pair.to else { throw .samePairNode(pair) }
            guard adjustment.factor.isFinite, adjustment.factor >= Self.minimumFactor else { throw .invalidFactor(pair, adjustment.factor) }
            guard adjustment.penalty.isFinite, adjustment.penalty >= 0 else { throw .invalidPenalty(pair, adjustment.penalty) }
        }
        self.adjustments = adjustments
        boundScale = min(1, adjustments.values.map(\.factor).min() ?? 1)
    }

    /// True when nothing is adjusted.
    public var isEmpty: Bool { adjustments.isEmpty }
}

/// Why a ``CostOverlay`` cannot be built.
public enum CostOverlayError: Error, Sendable, Hashable {
    /// A factor below ``CostOverlay/minimumFactor``, infinite or NaN.
    case invalidFactor(CostOverlay.NodePair, Double)
    /// A penalty below 0, infinite or NaN.
    case invalidPenalty(CostOverlay.NodePair, Double)
    /// A pair whose two nodes are the same node: no segment.
    case samePairNode(CostOverlay.NodePair)
}
