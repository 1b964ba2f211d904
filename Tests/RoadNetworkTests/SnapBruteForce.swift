import Foundation
import Geo
@testable import RoadNetwork

/// Snapping by brute force, the oracle for ``SnapIndex``: every segment of every edge projected on in the
/// equirectangular plane around the query point, measured on the great circle, the best per edge kept, then sorted —
/// no grid, no bounds, no pruning.
enum SnapBruteForce {
    /// The `limit` nearest edges within `radius` metres, nearest first, ties by edge (each edge by its nearest segment,
    /// ties by segment).
    static func candidates(_ graph: RoadGraph, latitude: Double, longitude: Double, radius: Double, limit: Int) -> [SnapIndex.Snap] {
        let scaleLatitude = 6_371_008.8 * .pi / 180, scaleLongitude = scaleLatitude * cos(latitude * .pi / 180)
        var best: [SnapIndex.Snap] = []
        for edge in 0..<graph.edgeCount {
            let start = Int(graph.edgeShapeStarts[edge]), end = Int(graph.edgeShapeStarts[edge + 1])
            var nearest: SnapIndex.Snap?
            for point in start..<(end - 1) {
                let ax = (graph.shapeLongitudes[point] - longitude) * scaleLongitude, ay = (graph.shapeLatitudes[point] - latitude) * scaleLatitude
                let bx = (graph.shapeLongitudes[point + 1] - longitude) * scaleLongitude, by = (graph.shapeLatitudes[point + 1] - latitude) * scaleLatitude
                let dx = bx - ax, dy = by - ay
                let lengthSquared = dx * dx + dy * dy
                let t = lengthSquared > 0 ? min(1, max(0, -(ax * dx + ay * dy) / lengthSquared)) : 0
                let projected = (latitude + (ay + t * dy) / scaleLatitude, longitude + (ax + t * dx) / scaleLongitude)
                let distance = greatCircle((latitude, longitude), projected)
                guard distance <= radius, distance < nearest?.distance ?? .infinity else { continue }
                nearest = SnapIndex.Snap(edge: edge, segment: point - start, latitude: projected.0, longitude: projected.1,
                                         distance: distance, offset: offset(graph, from: start, point: point, to: projected))
            }
            if let nearest { best.append(nearest) }
        }
        return Array(best.sorted { ($0.distance, $0.edge) < ($1.distance, $1.edge) }.prefix(limit))
    }

    /// The nearest edge within `radius` metres.
    static func nearest(_ graph: RoadGraph, latitude: Double, longitude: Double, radius: Double) -> SnapIndex.Snap? {
        candidates(graph, latitude: latitude, longitude: longitude, radius: radius, limit: 1).first
    }

    /// Metres along the shape from the edge's first point `start` to `projected` on the segment starting at `point`.
    private static func offset(_ graph: RoadGraph, from start: Int, point: Int, to projected: (Double, Double)) -> Double {
        var offset = 0.0
        for index in start..<point {
            offset += greatCircle((graph.shapeLatitudes[index], graph.shapeLongitudes[index]),
                                  (graph.shapeLatitudes[index + 1], graph.shapeLongitudes[index + 1]))
        }
        return offset + greatCircle((graph.shapeLatitudes[point], graph.shapeLongitudes[point]), projected)
    }

    private static func greatCircle(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        guard let from = try? Coordinate(latitude: a.0, longitude: a.1), let to = try? Coordinate(latitude: b.0, longitude: b.1) else {
            return .infinity
        }
        return from.distance(to: to)
    }
}
