import Foundation
import RoadNetwork

/// The community layer resolved for one graph: the ``CostOverlay`` of ``CommunityLayer`` (its documented factors and
/// penalties) and, per directed node pair, the approved path and the obstacles on it — what a route's breakdown names.
/// Built whole from ``CommunityRecords`` whenever the consumer changed them; immutable.
public struct CommunityIndex: Sendable {
    /// The approved path covering a segment (the best condition where paths overlap, as the layer counts it).
    public struct PathUse: Sendable, Hashable {
        public var id: UUID
        public var name: String
        public var condition: String
    }

    /// An obstacle on a segment, with the penalty the layer gives it.
    public struct ObstacleUse: Sendable, Hashable {
        public var id: UUID
        public var pathId: UUID
        public var type: String
        public var confidence: Double
        public var latitude: Double
        public var longitude: Double
        public var penalty: Double
    }

    /// The overlay the router's weights are resolved with.
    public let overlay: CostOverlay
    /// The path on each directed pair.
    public let paths: [CostOverlay.NodePair: PathUse]
    /// The obstacles on each directed pair.
    public let obstacles: [CostOverlay.NodePair: [ObstacleUse]]
    /// How many paths, obstacles and marked streets it holds.
    public let counts: (paths: Int, obstacles: Int, streets: Int)

    /// Nothing known: the profile's weights.
    public static let empty = CommunityIndex(overlay: .empty, paths: [:], obstacles: [:], counts: (0, 0, 0))

    private init(overlay: CostOverlay, paths: [CostOverlay.NodePair: PathUse], obstacles: [CostOverlay.NodePair: [ObstacleUse]],
                 counts: (Int, Int, Int)) {
        (self.overlay, self.paths, self.obstacles, self.counts) = (overlay, paths, obstacles, counts)
    }

    /// The index of `records`.
    public init(_ records: CommunityRecords) throws(CostOverlayError) {
        var layer = CommunityLayer()
        var paths: [CostOverlay.NodePair: PathUse] = [:]
        let rank = CommunityLayer.conditionFactors
        for path in records.paths {
            layer.approve(path: path.id.uuidString, nodes: path.nodes, condition: path.condition)
            let use = PathUse(id: path.id, name: path.name, condition: path.condition)
            for pair in CommunityLayer.bothWays(path.nodes) {
                if let held = paths[pair], (rank[held.condition] ?? 1) <= (rank[use.condition] ?? 1) { continue }
                paths[pair] = use
            }
        }
        var obstacles: [CostOverlay.NodePair: [ObstacleUse]] = [:]
        for obstacle in records.obstacles {
            layer.confirm(obstacle: obstacle.id.uuidString, nodes: obstacle.nodes, type: obstacle.type, confidence: obstacle.confidence)
            let use = ObstacleUse(id: obstacle.id, pathId: obstacle.pathId, type: obstacle.type, confidence: obstacle.confidence,
                                  latitude: obstacle.latitude, longitude: obstacle.longitude,
                                  penalty: CommunityLayer.penalty(type: obstacle.type, confidence: obstacle.confidence))
            for pair in CommunityLayer.bothWays(obstacle.nodes) { obstacles[pair, default: []].append(use) }
        }
        for street in records.streets { layer.mark(street: street.id, nodes: street.nodes, incompatible: true) }
        self.init(overlay: try layer.overlay(), paths: paths, obstacles: obstacles.mapValues { $0.sorted { $0.id.uuidString < $1.id.uuidString } },
                  counts: (records.paths.count, records.obstacles.count, records.streets.count))
    }
}
