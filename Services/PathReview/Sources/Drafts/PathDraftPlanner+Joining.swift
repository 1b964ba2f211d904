import Geo
import RoadNetwork
import ServiceKit

extension PathDraftPlanner {
    /// The legs in order, each whole street turned to follow on from the one before, gaps joined along the network;
    /// `nil` when a leg is missing (its errors are listed already) or a gap cannot be joined (listed here).
    func join(_ legs: [DraftLeg?], into validator: inout Validator) -> DraftLeg? {
        guard var route = legs.first ?? nil else { return nil }
        var complete = true
        for index in legs.indices.dropFirst() {
            guard let next = legs[index] else { complete = false; continue }
            if index == 1, route.first.metres(to: next.first) < route.last.metres(to: next.first) - 1 { route = route.reversed }
            let (leg, gap) = next.last.metres(to: route.last) < next.first.metres(to: route.last) ? (next.reversed, next.last.metres(to: route.last))
                                                                                               : (next, next.first.metres(to: route.last))
            guard gap > 1 else { route = route.joined(leg); continue }
            guard gap <= Self.maximumGap else {
                validator.require(false, field: "pieces[\(index)]", code: "too-far-apart",
                                  message: "starts \(Int(gap / 1_000)) km from the piece before it: a path lies in one place (gaps up to \(Int(Self.maximumGap / 1_000)) km are joined)")
                complete = false
                continue
            }
            guard let link = link(from: route.last, to: leg.first) else {
                validator.require(false, field: "pieces[\(index)]", code: "gap-not-joinable",
                                  message: "the network has no bike route from the end of the piece before it to this one")
                complete = false
                continue
            }
            route = route.joined(link).joined(leg)
        }
        return complete ? route : nil
    }

    /// The bike profile's best route between two points on the network.
    private func link(from: RoadPoint, to: RoadPoint) -> DraftLeg? {
        let request = RouteRequest(origin: from, destination: to, snapRadius: Self.snapRadius)
        return (try? roads.router.route(request))?.routes.first.map(DraftLeg.init)
    }

    /// Each obstacle projected onto the route, or a field error when it lies farther than ``obstacleTolerance``.
    func place(_ obstacles: [DraftObstacleRequest], on route: DraftLeg?, into validator: inout Validator) -> [DraftObstacle] {
        let polyline = route.map { Polyline($0.points.compactMap(\.coordinate)) }
        var placed: [DraftObstacle] = []
        for (index, obstacle) in obstacles.enumerated() {
            validator.nested("obstacles[\(index)]") { v in
                guard let point = obstacle.point.coordinate else {
                    v.require(false, field: "point", code: "out-of-range", message: "must be a latitude in -90…90 and a longitude in -180…180")
                    return
                }
                v.length(obstacle.note, field: "note", max: 500)
                guard let polyline, let projection = polyline.projection(of: point) else { return }
                guard projection.distance <= Self.obstacleTolerance else {
                    v.require(false, field: "point", code: "off-path",
                              message: "lies \(Int(projection.distance.rounded())) m from the path; at most \(Int(Self.obstacleTolerance)) m")
                    return
                }
                placed.append(DraftObstacle(type: obstacle.type, latitude: projection.point.latitude, longitude: projection.point.longitude,
                                            offsetMetres: projection.distanceAlong, note: obstacle.note))
            }
        }
        return placed
    }
}
