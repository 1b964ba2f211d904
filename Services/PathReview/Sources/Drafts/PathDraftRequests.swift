import Foundation
import RoadNetwork
import ServiceKit

/// `{ "lat", "lng" }` in a request (DESIGN: coordinates in requests).
struct LatLngBody: Codable, Sendable, Hashable {
    var lat: Double
    var lng: Double

    var point: RoadPoint { RoadPoint(latitude: lat, longitude: lng) }
}

/// One piece: `{ "streetId", "from"?, "to"? }` (a street, whole or between two points) or `{ "line": [{lat, lng}…] }`.
struct PieceBody: Codable, Sendable, Hashable {
    var streetId: Int64?
    var from: LatLngBody?
    var to: LatLngBody?
    var line: [LatLngBody]?

    /// The piece, or field errors when it is neither a street nor a line.
    func request(into validator: inout Validator) -> DraftPieceRequest? {
        switch (streetId, line) {
        case (let id?, nil): return .street(id: id, from: from?.point, to: to?.point)
        case (nil, let points?):
            validator.require(from == nil && to == nil, field: from == nil ? "to" : "from", code: "not-allowed",
                              message: "from and to belong to a street piece")
            return .line(points.map(\.point))
        default:
            validator.require(false, field: "streetId", code: "required", message: "give streetId (a street) or line (a drawn line), one of them")
            return nil
        }
    }
}

/// One obstacle: its type, a point on the path, a note.
struct ObstacleBody: Codable, Sendable, Hashable {
    var type: String
    var point: LatLngBody
    var note: String?
}

/// `POST /v1/paths/drafts` and `PUT /v1/paths/drafts/{id}`: the whole draft (a PUT replaces it).
struct PathDraftBody: Codable, Sendable {
    var name: String
    var condition: String
    var details: PathDetails?
    var pieces: [PieceBody]
    var obstacles: [ObstacleBody]?

    /// The most obstacles one draft carries.
    static let maximumObstacles = 100

    /// The ids of its street pieces when there are not too many pieces to plan (what ``StreetStatus`` is asked about).
    var streetIDs: [Int64] {
        pieces.count <= PathDraftPlanner.maximumPieces ? pieces.compactMap(\.streetId) : []
    }

    /// The draft's content with its route, or a 422 listing every problem of the body and of its pieces on the network
    /// at once (the network checks run when every piece and obstacle is well formed and there are not too many pieces).
    func content(planner: PathDraftPlanner) throws -> PathDraftContent {
        var validator = Validator()
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        validator.length(name, field: "name", min: 1, max: 100)
        validator.oneOf(condition, field: "condition", allowed: PathCondition.allCases.map(\.rawValue))
        validator.length(details?.surface, field: "details.surface", max: 40)
        validator.count(obstacles, field: "obstacles", max: Self.maximumObstacles)
        var requests: [DraftObstacleRequest] = []
        validator.each(obstacles, field: "obstacles") { v, obstacle in
            v.oneOf(obstacle.type, field: "type", allowed: PathObstacleType.allCases.map(\.rawValue))
            if let type = PathObstacleType(rawValue: obstacle.type) {
                requests.append(DraftObstacleRequest(type: type, point: obstacle.point.point, note: obstacle.note))
            }
        }
        var pieceRequests: [DraftPieceRequest?] = []
        if pieces.count <= PathDraftPlanner.maximumPieces {
            validator.each(pieces, field: "pieces") { v, piece in pieceRequests.append(piece.request(into: &v)) }
        }
        var planned: (DraftRoute, [DraftObstacle])?
        if pieces.count <= PathDraftPlanner.maximumPieces, requests.count == (obstacles ?? []).count, !pieceRequests.contains(nil) {
            planned = planner.plan(pieces: pieceRequests.compactMap { $0 }, obstacles: requests, into: &validator)
        } else {
            validator.count(pieces, field: "pieces", min: 1, max: PathDraftPlanner.maximumPieces)
        }
        try validator.check()
        guard let (route, placed) = planned, let condition = PathCondition(rawValue: condition) else { throw Problem.unprocessable(fieldErrors: []) }
        return PathDraftContent(name: name, condition: condition, details: details ?? PathDetails(), route: route, obstacles: placed)
    }
}
