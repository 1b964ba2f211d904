import Geo
import RoadNetwork

/// Origin–destination pairs for timing routes, drawn from a seed so that every run asks the same questions.
enum RoutePairs {
    /// Metres a point may lie from the nearest usable edge: ``RouteRequest``'s default, used for every request.
    static let snapRadius = RouteRequest(origin: RoadPoint(latitude: 0, longitude: 0), destination: RoadPoint(latitude: 0, longitude: 0)).snapRadius

    /// Up to `count` pairs of coordinates whose snapped positions lie `distance` metres apart (great circle): the
    /// origin within 50 m of a random shape point of the graph (so pairs follow where the streets are), the
    /// destination at a random bearing and distance from it; a pair is redrawn when a point has no street within
    /// ``snapRadius`` (the sea, outside the extract) or the snapped points are not `distance` apart. Returns the pairs
    /// and how many were drawn in all (at most 1,000 per pair wanted).
    static func near(_ router: RoadRouter, count: Int, distance: ClosedRange<Double>, seed: UInt64) -> (pairs: [(RoadPoint, RoadPoint)], draws: Int) {
        let graph = router.graph
        guard !graph.shapeLatitudes.isEmpty else { return ([], 0) }
        var random = SeededGenerator(seed: seed)
        var pairs: [(RoadPoint, RoadPoint)] = []
        var draws = 0
        while pairs.count < count, draws < count * 1_000 {
            draws += 1
            guard let origin = pointNear(graph, within: 50, random: &random) else { continue }
            let destination = origin.destination(bearing: Double.random(in: 0..<360, using: &random),
                                                 distance: Double.random(in: distance, using: &random))
            guard let a = snapped(router, origin), let b = snapped(router, destination),
                  distance.contains(a.distance(to: b)) else { continue }
            pairs.append((RoadPoint(origin), RoadPoint(destination)))
        }
        return (pairs, draws)
    }

    /// `count` points within `radius` metres of random shape points of the graph (snapping's workload).
    static func pointsNear(_ graph: RoadGraph, count: Int, within radius: Double, seed: UInt64) -> [RoadPoint] {
        guard !graph.shapeLatitudes.isEmpty else { return [] }
        var random = SeededGenerator(seed: seed)
        var points: [RoadPoint] = []
        for _ in 0..<count {
            if let point = pointNear(graph, within: radius, random: &random) { points.append(RoadPoint(point)) }
        }
        return points
    }

    /// `count` pairs of points anywhere in the grid's square (uniformly), each at least one spacing apart.
    static func uniform(in grid: GridCity, count: Int, seed: UInt64) -> [(RoadPoint, RoadPoint)] {
        var random = SeededGenerator(seed: seed)
        let southWest = grid.position(row: 0, column: 0), northEast = grid.position(row: grid.side - 1, column: grid.side - 1)
        func point() -> RoadPoint {
            RoadPoint(latitude: Double.random(in: southWest.latitude...northEast.latitude, using: &random),
                      longitude: Double.random(in: southWest.longitude...northEast.longitude, using: &random))
        }
        var pairs: [(RoadPoint, RoadPoint)] = []
        while pairs.count < count {
            let a = point(), b = point()
            guard let from = try? Coordinate(latitude: a.latitude, longitude: a.longitude),
                  let to = try? Coordinate(latitude: b.latitude, longitude: b.longitude),
                  from.distance(to: to) >= GridCity.spacingMetres else { continue }
            pairs.append((a, b))
        }
        return pairs
    }

    /// A point at a random bearing, 0…`radius` metres from a random shape point (`nil` if that shape point were not
    /// a valid coordinate, which a graph's reader and cache check never let in).
    private static func pointNear(_ graph: RoadGraph, within radius: Double, random: inout SeededGenerator) -> Coordinate? {
        let index = Int.random(in: 0..<graph.shapeLatitudes.count, using: &random)
        guard let shapePoint = try? Coordinate(latitude: graph.shapeLatitudes[index], longitude: graph.shapeLongitudes[index]) else { return nil }
        return shapePoint.destination(bearing: Double.random(in: 0..<360, using: &random), distance: Double.random(in: 0...radius, using: &random))
    }

    /// Where `point` snaps, or `nil` when no usable edge lies within ``snapRadius``.
    private static func snapped(_ router: RoadRouter, _ point: Coordinate) -> Coordinate? {
        guard let snap = router.snapIndex.nearest(latitude: point.latitude, longitude: point.longitude, radius: snapRadius) else { return nil }
        return try? Coordinate(latitude: snap.latitude, longitude: snap.longitude)
    }
}

extension RoadPoint {
    /// The point at a checked coordinate.
    init(_ coordinate: Coordinate) {
        self.init(latitude: coordinate.latitude, longitude: coordinate.longitude)
    }
}
