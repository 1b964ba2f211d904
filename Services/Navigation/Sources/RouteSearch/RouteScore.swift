import Foundation
import RoadNetwork

/// What turning costs a cyclist on top of the distance, in equivalent metres (DESIGN: a route's score adds turn costs
/// to its weight). Right-hand traffic: a left turn crosses the oncoming lane, a sharp one needs a stop, a U-turn
/// usually a dismount. Going straight, bearing slightly and name changes cost nothing. Documented in
/// `docs/navigation.md`, "Route score".
public struct TurnCosts: Sendable, Hashable {
    public var slight = 0.0
    public var right = 10.0
    public var left = 25.0
    public var sharpRight = 20.0
    public var sharpLeft = 40.0
    public var uturn = 80.0

    public init() {}

    /// Share of a turn's cost a roundabout charges for the same overall turn: no crossing of oncoming traffic, but
    /// a yield at the entry and a ring to ride.
    public var roundaboutShare = 0.5

    /// The cost of a maneuver: `turn`s by their modifier, entering a roundabout half that (exits and name changes
    /// nothing).
    public func cost(of maneuver: RouteManeuver) -> Double {
        switch maneuver.kind {
        case .turn: return turnCost(maneuver.modifier)
        case .roundabout: return roundaboutShare * turnCost(maneuver.modifier)
        default: return 0
        }
    }

    private func turnCost(_ modifier: RouteManeuver.Modifier?) -> Double {
        switch modifier ?? .straight {
        case .straight: return 0
        case .slightLeft, .slightRight: return slight
        case .right: return right
        case .left: return left
        case .sharpRight: return sharpRight
        case .sharpLeft: return sharpLeft
        case .uturn: return uturn
        }
    }
}

/// A route's score and why (DESIGN, "Route score"): its weight in equivalent metres — Σ length × way preference ×
/// condition factor + obstacle penalties — plus turn costs. Routes are ranked by ``total``; the breakdown lets a
/// client say why one is first.
public struct RouteScore: Sendable, Hashable {
    /// Weight + turn costs: what routes are ranked by (lower is better).
    public var total: Double
    /// The router's weight (way preference, condition factors, obstacle penalties).
    public var weight: Double
    /// Metres by way class (`cycleway`, `residential`, …).
    public var metresByWayClass: [String: Double]
    /// Metres on approved paths by condition, `none` off them.
    public var metresByPathStatus: [String: Double]
    /// Obstacles passed and the sum of their penalties.
    public var obstacles: Int
    public var obstaclePenalty: Double
    /// Turns (maneuvers of type `turn` and roundabout entries) and their summed cost.
    public var turns: Int
    public var turnCost: Double

    init(legs: [RoadRoute], steps: [RouteStep], graph: RoadGraph, annotations: RouteAnnotations.Along, turnCosts: TurnCosts) {
        var byClass: [String: Double] = [:]
        for segment in legs.flatMap(\.segments) {
            byClass[graph.ways.use(of: Int(graph.edgeWays[segment.edge])).wayClass, default: 0] += segment.distance
        }
        let turning = steps.filter { $0.maneuver.kind == .turn || $0.maneuver.kind == .roundabout }
        weight = legs.reduce(0) { $0 + $1.weight }
        metresByWayClass = byClass
        metresByPathStatus = annotations.metresByPathStatus
        obstacles = annotations.obstacles.count
        obstaclePenalty = annotations.obstacles.reduce(0) { $0 + $1.penalty }
        turns = turning.count
        turnCost = turning.reduce(0) { $0 + turnCosts.cost(of: $1.maneuver) }
        total = weight + turnCost
    }
}
