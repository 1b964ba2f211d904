import RoadNetwork

/// One piece of a draft as its author asks for it.
public enum DraftPieceRequest: Sendable, Hashable {
    /// A street (its catalogue id): the whole street, or the part between two points on it (both given).
    case street(id: Int64, from: RoadPoint?, to: RoadPoint?)
    /// A line the author drew, snapped onto the network by routing through its points with the bike profile.
    case line([RoadPoint])
}

/// An obstacle as its author places it: near the path, which the planner projects it onto.
public struct DraftObstacleRequest: Sendable, Hashable {
    public var type: PathObstacleType
    public var point: RoadPoint
    public var note: String?

    /// An obstacle request.
    public init(type: PathObstacleType, point: RoadPoint, note: String? = nil) {
        self.type = type
        self.point = point
        self.note = note
    }
}

/// A stretch of the network in travel order: the OSM nodes it runs along and its geometry.
struct DraftLeg: Sendable, Hashable {
    var nodeIDs: [Int64]
    var points: [RoadPoint]

    var first: RoadPoint { points[0] }
    var last: RoadPoint { points[points.count - 1] }

    /// The same stretch travelled the other way.
    var reversed: DraftLeg { DraftLeg(nodeIDs: nodeIDs.reversed(), points: points.reversed()) }

    /// The leg of a router's route.
    init(_ route: RoadRoute) {
        nodeIDs = route.nodeIDs
        points = route.geometry
    }

    init(nodeIDs: [Int64], points: [RoadPoint]) {
        self.nodeIDs = nodeIDs
        self.points = points
    }

    /// The leg of whole edges travelled as `arcs` (edge, reversed), each shared node once.
    init(graph: RoadGraph, arcs: [(edge: Int, reversed: Bool)]) {
        var nodes: [Int64] = []
        var points: [RoadPoint] = []
        for arc in arcs {
            let shapeNodes = Array(graph.shapeNodes(of: arc.edge))
            let shape = graph.shape(of: arc.edge).map { RoadPoint(latitude: $0.latitude, longitude: $0.longitude) }
            for node in arc.reversed ? shapeNodes.reversed() : shapeNodes where nodes.last != node { nodes.append(node) }
            for point in arc.reversed ? shape.reversed() : shape where points.last != point { points.append(point) }
        }
        self.init(nodeIDs: nodes, points: points)
    }

    /// This leg followed by `next`, the node and point where they meet kept once.
    func joined(_ next: DraftLeg) -> DraftLeg {
        var joined = self
        for node in next.nodeIDs where joined.nodeIDs.last != node { joined.nodeIDs.append(node) }
        for point in next.points where joined.points.last != point { joined.points.append(point) }
        return joined
    }
}
