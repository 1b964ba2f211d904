import Contracts
import Foundation
import Geo
import RoadNetwork
import ServiceKit

/// Where each OSM node of path-review's own network lies: every vertex and every shape node of every edge (a ride's
/// node pieces name both). Built once per network.
public struct RideNodeIndex: Sendable {
    let points: [Int64: RoadPoint]

    /// The index of `graph`'s nodes.
    public init(graph: RoadGraph) {
        var points: [Int64: RoadPoint] = [:]
        points.reserveCapacity(graph.shapeNodeIDs.count)
        for (index, node) in graph.shapeNodeIDs.enumerated() where points[node] == nil {
            points[node] = RoadPoint(latitude: graph.shapeLatitudes[index], longitude: graph.shapeLongitudes[index])
        }
        for (index, node) in graph.vertexNodeIDs.enumerated() where points[node] == nil {
            points[node] = RoadPoint(latitude: graph.vertexLatitudes[index], longitude: graph.vertexLongitudes[index])
        }
        self.points = points
    }

    /// Where node `id` lies; `nil` when the network does not know it.
    public func point(of id: Int64) -> RoadPoint? { points[id] }
}

/// Turns a `RideSubmittedAsPathDraft` into a draft's content on path-review's own network (issue 20 point 3):
/// each node piece is kept as the rider rode it (every node must be known to the network); consecutive pieces that do
/// not meet are joined along the network by the bike profile, exactly as a manual draft's pieces are
/// (``PathDraftPlanner``'s rules: gaps up to ``PathDraftPlanner/maximumGap``); the rider's condition when given
/// (`medium` otherwise, which the rider edits); a default name; no obstacles (the event carries none). Problems are
/// listed as field errors named after the event's fields (`pieces[i]`, `pieces[i][j]`, `condition`).
public struct RideDraftResolver: Sendable {
    let planner: PathDraftPlanner
    let nodes: RideNodeIndex

    /// The condition a ride's draft gets when the rider gave none.
    public static let defaultCondition = PathCondition.medium

    /// A resolver over `roads` (its node index is built here: build one per service).
    public init(roads: PathReviewRoads) {
        planner = PathDraftPlanner(roads: roads)
        nodes = RideNodeIndex(graph: roads.network.graph)
    }

    /// The draft's content, or a 422 ``Problem`` listing every reason the network cannot place the ride.
    public func content(of ride: RideSubmittedAsPathDraft) throws -> PathDraftContent {
        var validator = Validator()
        validator.count(ride.pieces, field: "pieces", min: 1, max: PathDraftPlanner.maximumPieces)
        if let condition = ride.condition {
            validator.oneOf(condition, field: "condition", allowed: PathCondition.allCases.map(\.rawValue))
        }
        var legs: [DraftLeg?] = []
        if (1...PathDraftPlanner.maximumPieces).contains(ride.pieces.count) {
            for (index, piece) in ride.pieces.enumerated() { legs.append(leg(of: piece, index: index, into: &validator)) }
        }
        let route = legs.isEmpty ? nil : planner.join(legs, into: &validator)
        try validator.check()
        guard let route else { throw Problem.unprocessable(fieldErrors: []) }
        let polyline = Polyline(route.points.compactMap(\.coordinate))
        let draftRoute = DraftRoute(nodeIDs: route.nodeIDs, coordinates: route.points.map { [$0.latitude, $0.longitude] },
                                    lengthMetres: polyline.length)
        let condition = ride.condition.flatMap(PathCondition.init(rawValue:)) ?? Self.defaultCondition
        return PathDraftContent(name: Self.defaultName(ride), condition: condition, details: PathDetails(), route: draftRoute, obstacles: [])
    }

    /// "Ride of 2026-11-26": the day the ride was submitted (UTC), which the rider renames.
    public static func defaultName(_ ride: RideSubmittedAsPathDraft) -> String {
        let day = ride.submittedAt.formatted(.iso8601.year().month().day().dateSeparator(.dash))
        return "Ride of \(day)"
    }

    /// One piece as ridden: its nodes (consecutive duplicates dropped) at their places on the network.
    private func leg(of piece: [Int64], index: Int, into validator: inout Validator) -> DraftLeg? {
        var ids: [Int64] = []
        for node in piece where ids.last != node { ids.append(node) }
        validator.require(ids.count >= 2, field: "pieces[\(index)]", code: "too-short", message: "a piece names at least two nodes")
        var points: [RoadPoint] = []
        var known = true
        for (position, node) in piece.enumerated() where position == 0 || piece[position - 1] != node {
            guard let point = nodes.point(of: node) else {
                validator.require(false, field: "pieces[\(index)][\(position)]", code: "unknown-node",
                                  message: "node \(node) is not on path-review's network")
                known = false
                continue
            }
            points.append(point)
        }
        guard known, ids.count >= 2 else { return nil }
        return DraftLeg(nodeIDs: ids, points: points)
    }
}
