/// The community's knowledge of the network as a ``CostOverlay`` (DESIGN, "Community layer"): approved paths with
/// their condition, open obstacles with their confidence, streets moderators marked incompatible. A service folds
/// `waypoint.paths` into it (navigation), then resolves ``overlay()`` and swaps the router's weights — no rebuild.
///
/// Plain data in, one overlay out; the constants are documented in `docs/road-network.md`, "Community layer":
///
/// | what | on which segments | adjustment |
/// |---|---|---|
/// | approved path, `optimal` | every consecutive node pair of the path, both directions | factor 0.7 |
/// | `medium` | | 0.85 |
/// | `sufficient` | | 1.0 |
/// | `requires-maintenance` | | 1.3 |
/// | open obstacle | its node pair, both directions | penalty by type × confidence (0–1) |
/// | street marked incompatible | every node pair of the street, both directions | factor 3 |
///
/// Where approved paths overlap, the best condition counts (two paths along one street are one path to a rider); a
/// mark multiplies; penalties of several obstacles on one segment add.
public struct CommunityLayer: Sendable, Hashable {
    /// Factors by a path's published condition.
    public static let conditionFactors: [String: Double] = [
        "optimal": 0.7, "medium": 0.85, "sufficient": 1.0, "requires-maintenance": 1.3,
    ]
    /// Penalty in equivalent metres of an obstacle of full confidence, by type (a rider slows, steers round, or —
    /// roadworks, a barrier — may have to dismount or turn back).
    public static let obstaclePenalties: [String: Double] = [
        "pothole": 60, "bump": 20, "gravel": 40, "glass": 80, "roadworks": 300, "barrier": 150, "other": 50,
    ]
    /// The factor on a street a moderator marked incompatible: strongly avoided, still usable when nothing else
    /// connects.
    public static let incompatibleFactor = 3.0

    struct Path: Sendable, Hashable {
        var pairs: [CostOverlay.NodePair]
        var condition: String
    }

    struct Obstacle: Sendable, Hashable {
        var pairs: [CostOverlay.NodePair]
        var penalty: Double
    }

    private var paths: [String: Path] = [:]
    private var obstacles: [String: Obstacle] = [:]
    private var streets: [Int64: [CostOverlay.NodePair]] = [:]

    public init() {}

    /// How many approved paths, open obstacles and marked streets it holds.
    public var counts: (paths: Int, obstacles: Int, streets: Int) { (paths.count, obstacles.count, streets.count) }

    /// Path `id` is approved along `nodes` in `condition` (again: replaced).
    public mutating func approve(path id: String, nodes: [Int64], condition: String) {
        paths[id] = Path(pairs: Self.bothWays(nodes), condition: condition)
    }

    /// Path `id`'s published condition changed (an unknown path: nothing).
    public mutating func setCondition(path id: String, condition: String) {
        paths[id]?.condition = condition
    }

    /// Path `id` left the network.
    public mutating func retire(path id: String) {
        paths[id] = nil
    }

    /// Obstacle `id` is open on the segment `nodes` (a directed pair; both directions are penalised) with `confidence`.
    public mutating func confirm(obstacle id: String, nodes: [Int64], type: String, confidence: Double) {
        let pairs = Self.bothWays(nodes)
        guard !pairs.isEmpty else { return }
        obstacles[id] = Obstacle(pairs: pairs, penalty: Self.penalty(type: type, confidence: confidence))
    }

    /// The penalty of an obstacle of `type` (unknown types count as `other`) at `confidence` (clamped to 0…1; not
    /// finite: 0), in equivalent metres.
    public static func penalty(type: String, confidence: Double) -> Double {
        let weight = confidence.isFinite ? min(max(confidence, 0), 1) : 0
        return (obstaclePenalties[type] ?? obstaclePenalties["other"]!) * weight
    }

    /// Obstacle `id` is gone.
    public mutating func resolve(obstacle id: String) {
        obstacles[id] = nil
    }

    /// Street `id` (its node sequences) is marked incompatible, or the mark is lifted.
    public mutating func mark(street id: Int64, nodes: [[Int64]], incompatible: Bool) {
        streets[id] = incompatible ? nodes.flatMap(Self.bothWays) : nil
    }

    /// The overlay of everything held now.
    public func overlay() throws(CostOverlayError) -> CostOverlay {
        var factors: [CostOverlay.NodePair: Double] = [:]
        for path in paths.values {
            let factor = Self.conditionFactors[path.condition] ?? 1
            for pair in path.pairs { factors[pair] = min(factors[pair] ?? .infinity, factor) }
        }
        for pairs in streets.values {
            for pair in Set(pairs) { factors[pair] = (factors[pair] ?? 1) * Self.incompatibleFactor }
        }
        var penalties: [CostOverlay.NodePair: Double] = [:]
        for obstacle in obstacles.values where obstacle.penalty > 0 {
            for pair in obstacle.pairs { penalties[pair, default: 0] += obstacle.penalty }
        }
        var adjustments: [CostOverlay.NodePair: CostOverlay.Adjustment] = [:]
        for pair in Set(factors.keys).union(penalties.keys) {
            let adjustment = CostOverlay.Adjustment(factor: max(factors[pair] ?? 1, CostOverlay.minimumFactor), penalty: penalties[pair] ?? 0)
            if adjustment.factor != 1 || adjustment.penalty != 0 { adjustments[pair] = adjustment }
        }
        return try CostOverlay(adjustments)
    }

    /// Each consecutive pair of `nodes` in both directions (a node repeated in a row is skipped).
    public static func bothWays(_ nodes: [Int64]) -> [CostOverlay.NodePair] {
        zip(nodes, nodes.dropFirst()).filter { $0 != $1 }.flatMap { [CostOverlay.NodePair(from: $0, to: $1), CostOverlay.NodePair(from: $1, to: $0)] }
    }
}
