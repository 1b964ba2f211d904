import Geo
import RoadNetwork
import ServiceKit

/// Turns a draft's pieces and obstacles into its route on the network, or lists every problem at once (422 with field
/// errors). The rules and their numbers are `docs/path-review.md`'s:
///
/// - at most ``maximumPieces`` pieces (checked first: a 10,000-piece draft costs nothing more);
/// - a street piece names a catalogue street that is compatible; its whole length, or the part between the street's
///   vertices nearest to `from` and `to` (each within ``snapRadius`` of the street), along its own edges;
/// - a drawn line has 2…``maximumLinePoints`` points, each within ``snapRadius`` of the network, and is routed through
///   them with the bike profile;
/// - consecutive pieces that do not meet are joined by the bike profile's best route; a gap wider than ``maximumGap``
///   is two places (two cities), not a gap; a gap the network cannot join is an error;
/// - each obstacle lies within ``obstacleTolerance`` of the route, and is placed at its projection onto it.
public struct PathDraftPlanner: Sendable {
    let roads: PathReviewRoads
    /// The streets' compatibility now (``StreetStatus``), where it differs from the catalogue's: covered by approved
    /// paths, marked by a moderator. Streets not in it are judged by the catalogue alone.
    var compatibilities: [Int64: StreetCompatibility] = [:]

    public static let maximumPieces = 50
    public static let maximumLinePoints = RoadRouter.maximumViaPoints + 2
    /// Metres: how far a street piece's `from`/`to` or a line's points may lie from the street or the network.
    public static let snapRadius = 50.0
    /// Metres: how far from the route an obstacle may lie (a GPS fix on a phone, a tap on a map).
    public static let obstacleTolerance = 30.0
    /// Metres: the widest gap between consecutive pieces that is joined; wider, the pieces lie in two places.
    public static let maximumGap = 5_000.0

    /// A planner over `roads`.
    public init(roads: PathReviewRoads) {
        self.roads = roads
    }

    /// This planner judging streets by `compatibilities` (what ``StreetStatus/compatibilities(of:)`` says of the
    /// draft's streets now).
    public func judging(_ compatibilities: [Int64: StreetCompatibility]) -> PathDraftPlanner {
        var copy = self
        copy.compatibilities = compatibilities
        return copy
    }

    /// The route of `pieces` and the obstacles placed on it; throws a 422 ``Problem`` listing every invalid field.
    public func plan(pieces: [DraftPieceRequest], obstacles: [DraftObstacleRequest]) throws -> (DraftRoute, [DraftObstacle]) {
        var validator = Validator()
        let planned = plan(pieces: pieces, obstacles: obstacles, into: &validator)
        try validator.check()
        guard let planned else { throw Problem.unprocessable(fieldErrors: []) }
        return planned
    }

    /// The same, recording every problem in `validator` (beside the request's own field errors) instead of throwing;
    /// `nil` when there is one.
    public func plan(pieces: [DraftPieceRequest], obstacles: [DraftObstacleRequest], into validator: inout Validator)
        -> (DraftRoute, [DraftObstacle])? {
        let before = validator
        validator.count(pieces, field: "pieces", min: 1, max: Self.maximumPieces)
        guard (1...Self.maximumPieces).contains(pieces.count) else { return nil }
        var legs: [DraftLeg?] = []
        for (index, piece) in pieces.enumerated() {
            validator.nested("pieces[\(index)]") { legs.append(leg(of: piece, into: &$0)) }
        }
        let route = join(legs, into: &validator)
        let placed = place(obstacles, on: route, into: &validator)
        guard let route, validator.fieldErrors.count == before.fieldErrors.count else { return nil }
        let polyline = Polyline(route.points.compactMap(\.coordinate))
        return (DraftRoute(nodeIDs: route.nodeIDs, coordinates: route.points.map { [$0.latitude, $0.longitude] }, lengthMetres: polyline.length),
                placed)
    }

    /// One piece's leg, or its field errors (and `nil`).
    func leg(of piece: DraftPieceRequest, into validator: inout Validator) -> DraftLeg? {
        switch piece {
        case let .street(id, from, to): streetLeg(id: id, from: from, to: to, into: &validator)
        case let .line(points): lineLeg(points, into: &validator)
        }
    }

    private func streetLeg(id: Int64, from: RoadPoint?, to: RoadPoint?, into validator: inout Validator) -> DraftLeg? {
        guard let entry = roads.streets.street(id: id) else {
            validator.require(false, field: "streetId", code: "unknown-street", message: "no street has this id")
            return nil
        }
        let compatibility = compatibilities[id] ?? entry.compatibility
        validator.require(compatibility.compatible, field: "streetId", code: "incompatible-street",
                          message: "\(entry.street.name) cannot carry a bike path (\(compatibility.reasons.map(\.rawValue).joined(separator: ", ")))")
        validator.require((from == nil) == (to == nil), field: from == nil ? "from" : "to", code: "required",
                          message: "give both from and to, or neither for the whole street")
        let stretch = StreetStretch(graph: roads.network.graph, street: entry.street)
        var ends = stretch.ends
        if let from, let to {
            let a = stretch.vertex(near: from, radius: Self.snapRadius, snaps: roads.router.snapIndex)
            let b = stretch.vertex(near: to, radius: Self.snapRadius, snaps: roads.router.snapIndex)
            validator.require(a != nil, field: "from", code: "not-on-street", message: "lies more than \(Int(Self.snapRadius)) m from \(entry.street.name)")
            validator.require(b != nil, field: "to", code: "not-on-street", message: "lies more than \(Int(Self.snapRadius)) m from \(entry.street.name)")
            validator.require(a == nil || a != b, field: "to", code: "too-short",
                              message: "from and to meet the street at the same junction; pick points farther apart")
            ends = a.flatMap { a in b.map { (a, $0) } }
        }
        guard compatibility.compatible, let (a, b) = ends, a != b, let arcs = stretch.arcs(from: a, to: b), !arcs.isEmpty else { return nil }
        return DraftLeg(graph: roads.network.graph, arcs: arcs)
    }

    private func lineLeg(_ points: [RoadPoint], into validator: inout Validator) -> DraftLeg? {
        validator.count(points, field: "line", min: 2, max: Self.maximumLinePoints)
        for (index, point) in points.enumerated() where point.coordinate == nil {
            validator.require(false, field: "line[\(index)]", code: "out-of-range", message: "must be a latitude in -90…90 and a longitude in -180…180")
        }
        guard (2...Self.maximumLinePoints).contains(points.count), points.allSatisfy({ $0.coordinate != nil }) else { return nil }
        let request = RouteRequest(origin: points[0], destination: points[points.count - 1], via: Array(points.dropFirst().dropLast()),
                                   snapRadius: Self.snapRadius)
        do {
            guard let route = try roads.router.route(request).routes.first else {
                validator.require(false, field: "line", code: "not-on-network", message: "its points are on parts of the network that do not connect")
                return nil
            }
            return DraftLeg(route)
        } catch {
            let (field, message) = Self.describe(error)
            validator.require(false, field: field, code: "not-on-network", message: message)
            return nil
        }
    }

    static func describe(_ error: RouteError) -> (field: String, message: String) {
        switch error {
        case .noStreetNear(let index): ("line[\(index)]", "lies more than \(Int(snapRadius)) m from any bike-usable way")
        case .coincidentPoints(let leg): ("line[\(leg + 1)]", "is where the point before it is")
        default: ("line", "cannot be snapped to the network")
        }
    }
}
