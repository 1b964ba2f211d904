import Foundation
import RoadNetwork

/// One route found for a ``RouteQuery``: the whole route, its legs with their steps, its score and what the community
/// knows along it.
public struct PlannedRoute: Sendable {
    /// One leg: between two consecutive points of the query.
    public struct Leg: Sendable {
        public var route: RoadRoute
        public var steps: [RouteStep]
    }

    public var legs: [Leg]
    public var score: RouteScore
    /// Approved paths the route rides on, in order.
    public var paths: [RouteAnnotations.PathStretch]
    /// Open obstacles it passes, in order.
    public var obstacles: [RouteAnnotations.ObstaclePassed]

    /// Metres, seconds and equivalent metres of all legs.
    public var distance: Double { legs.reduce(0) { $0 + $1.route.distance } }
    public var duration: Double { legs.reduce(0) { $0 + $1.route.duration } }
    public var weight: Double { legs.reduce(0) { $0 + $1.route.weight } }
    /// The whole geometry, each point once.
    public var geometry: [RoadPoint] {
        var points: [RoadPoint] = []
        for leg in legs { for point in leg.route.geometry where points.last != point { points.append(point) } }
        return points
    }
}

/// What a search found: the routes ranked by score (best first) and where each point of the query snapped.
public struct RoutePlan: Sendable {
    /// Where a query point landed on the network.
    public struct Waypoint: Sendable, Hashable {
        public var location: RoadPoint
        /// The street's name there ("" when unnamed).
        public var name: String
        /// Metres from the asked point.
        public var distance: Double
    }

    public var routes: [PlannedRoute]
    public var waypoints: [Waypoint]
}

/// Searches routes on the road network under the community layer of the moment (``CommunityOverlay``): the best route
/// and up to two alternatives (no via points), or the best route through via points leg by leg; scores, steps and
/// community annotations for each; ranked by score.
public struct RoutePlanner: Sendable {
    let roads: NavigationRoads
    let overlay: CommunityOverlay
    let snapRadius: Double
    let turnCosts: TurnCosts

    public init(roads: NavigationRoads, overlay: CommunityOverlay, snapRadius: Double, turnCosts: TurnCosts = TurnCosts()) {
        self.roads = roads
        self.overlay = overlay
        self.snapRadius = snapRadius
        self.turnCosts = turnCosts
    }

    /// The routes of `query`, best score first.
    public func plan(_ query: RouteQuery) throws(RouteSearchError) -> RoutePlan {
        let snapshot = overlay.current
        guard query.points.count >= 2 else { throw .invalid("a route needs an origin and a destination") }
        var candidates: [[RoadRoute]] = []
        if query.points.count == 2 {
            candidates = try routes(from: query.points[0], to: query.points[1], leg: 0, count: query.points.count,
                                    alternatives: query.alternatives, weights: snapshot.weights).map { [$0] }
        } else {
            var legs: [RoadRoute] = []
            for leg in 0..<(query.points.count - 1) {
                legs += try routes(from: query.points[leg], to: query.points[leg + 1], leg: leg, count: query.points.count,
                                   alternatives: 0, weights: snapshot.weights).prefix(1)
            }
            candidates = [legs]
        }
        let annotations = RouteAnnotations(index: snapshot.index, graph: roads.graph)
        let planned = candidates.map { legs -> PlannedRoute in
            let steps = legs.map { roads.guide.steps(of: $0)[0] }
            let along = annotations.along(legs)
            return PlannedRoute(legs: zip(legs, steps).map { PlannedRoute.Leg(route: $0, steps: $1) },
                                score: RouteScore(legs: legs, steps: steps.flatMap { $0 }, graph: roads.graph, annotations: along, turnCosts: turnCosts),
                                paths: along.paths, obstacles: along.obstacles)
        }
        let ranked = planned.enumerated().sorted { ($0.element.score.total, $0.offset) < ($1.element.score.total, $1.offset) }.map(\.element)
        return RoutePlan(routes: ranked, waypoints: waypoints(query.points, ranked[0]))
    }

    private func routes(from origin: RoadPoint, to destination: RoadPoint, leg: Int, count: Int, alternatives: Int,
                        weights: RoadWeights) throws(RouteSearchError) -> [RoadRoute] {
        let request = RouteRequest(origin: origin, destination: destination, alternatives: alternatives, snapRadius: snapRadius)
        let result: RouteResult
        do {
            result = try roads.router.route(request, weights: weights)
        } catch {
            switch error {
            case .noStreetNear(let index): throw .noSegment(index: leg + index, count: count, radius: snapRadius)
            case .coincidentPoints: throw .samePoint(leg: leg)
            // The routes check the query before (coordinates, counts, radius) and the weights are this graph's: these
            // cannot reach here, and if one did it is still the caller's input, never a crash.
            case .invalidCoordinate, .tooManyViaPoints, .invalidAlternativeCount, .invalidSnapRadius, .weightsForAnotherGraph:
                throw .invalid("\(error)")
            }
        }
        guard case .routes(let routes) = result, !routes.isEmpty else { throw .noRoute(leg: leg) }
        return routes
    }

    private func waypoints(_ points: [RoadPoint], _ route: PlannedRoute) -> [RoutePlan.Waypoint] {
        var snapped: [(RoadPoint, String)] = []
        for leg in route.legs {
            if let first = leg.route.geometry.first { snapped.append((first, leg.steps.first?.name ?? "")) }
        }
        if let last = route.legs.last?.route.geometry.last { snapped.append((last, route.legs.last?.steps.last?.name ?? "")) }
        return zip(points, snapped).map { point, snap in
            RoutePlan.Waypoint(location: snap.0, name: snap.1, distance: point.metres(to: snap.0))
        }
    }
}
