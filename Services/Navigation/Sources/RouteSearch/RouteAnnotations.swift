import Foundation
import RoadNetwork

/// What the community layer says along a route: the approved paths it rides (with where, in metres from the start)
/// and the open obstacles it passes — walked segment by segment over the OSM node pairs the layer is keyed by.
public struct RouteAnnotations: Sendable {
    /// A stretch of the route on one approved path.
    public struct PathStretch: Sendable, Hashable {
        public var id: UUID
        public var name: String
        public var condition: String
        /// Metres from the route's start where the stretch begins and ends.
        public var from: Double
        public var to: Double
    }

    /// An obstacle the route passes.
    public struct ObstaclePassed: Sendable, Hashable {
        public var id: UUID
        public var pathId: UUID
        public var type: String
        public var confidence: Double
        public var location: RoadPoint
        /// Metres from the route's start.
        public var at: Double
        /// Its penalty in the route's weight, equivalent metres.
        public var penalty: Double
    }

    /// The walk's result, with the metres by path status the score's breakdown lists.
    public struct Along: Sendable {
        public var paths: [PathStretch] = []
        public var obstacles: [ObstaclePassed] = []
        /// Metres on approved paths by condition, and `none` off them.
        public var metresByPathStatus: [String: Double] = [:]
    }

    let index: CommunityIndex
    let graph: RoadGraph

    /// The walk of consecutive `legs` (one route).
    public func along(_ legs: [RoadRoute]) -> Along {
        var result = Along()
        var travelled = 0.0
        var seenObstacles: Set<UUID> = []
        for segment in legs.flatMap(\.segments) {
            for piece in Self.pieces(of: segment) {
                let pair = CostOverlay.NodePair(from: piece.from, to: piece.to)
                let status = index.paths[pair]
                result.metresByPathStatus[status?.condition ?? "none", default: 0] += piece.length
                if let status {
                    if let last = result.paths.last, last.id == status.id, abs(last.to - travelled) < 0.5 {
                        result.paths[result.paths.count - 1].to = travelled + piece.length
                    } else {
                        result.paths.append(PathStretch(id: status.id, name: status.name, condition: status.condition, from: travelled,
                                                        to: travelled + piece.length))
                    }
                }
                for obstacle in index.obstacles[pair] ?? [] where seenObstacles.insert(obstacle.id).inserted {
                    let location = RoadPoint(latitude: obstacle.latitude, longitude: obstacle.longitude)
                    let offset = min(piece.length, piece.start.metres(to: location))
                    result.obstacles.append(ObstaclePassed(id: obstacle.id, pathId: obstacle.pathId, type: obstacle.type,
                                                           confidence: obstacle.confidence, location: location,
                                                           at: travelled + (offset.isFinite ? offset : 0), penalty: obstacle.penalty))
                }
                travelled += piece.length
            }
        }
        return result
    }

    struct Piece {
        var from: Int64
        var to: Int64
        var start: RoadPoint
        var length: Double
    }

    /// The segment's OSM node pairs in travel order with their metres: from the coordinates when each node has one
    /// (a piece cut at a snapped point keeps its count: the snapped point stands for the cut node), else the
    /// segment's length shared evenly.
    static func pieces(of segment: RoadRoute.Segment) -> [Piece] {
        let nodes = segment.nodeIDs, points = segment.coordinates
        guard nodes.count >= 2 else { return [] }
        let pairs = nodes.count - 1
        if points.count == nodes.count {
            var pieces = (0..<pairs).map { Piece(from: nodes[$0], to: nodes[$0 + 1], start: points[$0], length: points[$0].metres(to: points[$0 + 1])) }
            let sum = pieces.reduce(0) { $0 + $1.length }
            if sum > 0, sum.isFinite { for i in pieces.indices { pieces[i].length *= segment.distance / sum } }
            return pieces
        }
        let start = points.first ?? RoadPoint(latitude: 0, longitude: 0)
        return (0..<pairs).map { Piece(from: nodes[$0], to: nodes[$0 + 1], start: start, length: segment.distance / Double(pairs)) }
    }
}
