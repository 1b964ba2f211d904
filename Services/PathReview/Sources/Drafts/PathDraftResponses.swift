import Foundation
import Geo
import Hummingbird
import RoadNetwork

/// A draft as its author sees it (`GET`, and the answer of `POST`/`PUT`); its version is also the `ETag`.
struct PathDraftResponse: ResponseEncodable, Sendable {
    struct Obstacle: Codable, Sendable {
        var type: String
        var point: Geometry?
        var offsetMetres: Double
        var note: String?
    }

    var id: String
    var name: String
    var condition: String
    var details: PathDetails
    /// The OSM node sequence the path lies on.
    var nodeIds: [Int64]
    /// GeoJSON LineString (`[lng, lat]`).
    var geometry: Geometry?
    var lengthMetres: Double
    var obstacles: [Obstacle]
    var createdAt: Date
    var updatedAt: Date
    var version: Int64
    /// `draft`, `in-review`, `approved`, `rejected`.
    var stage: String
    /// `manual` (built from streets and lines) or `ride` (sent from a recorded ride).
    var source: String
    /// The last review decision (a sent-back draft keeps it: the changes asked for).
    var review: Review?
    var attribution = MapDataAttribution.openStreetMap

    struct Review: Codable, Sendable {
        var outcome: String
        var note: String?
        var decidedAt: Date
    }

    init?(_ state: PathDraftState, version: Int64) {
        guard let id = state.draftId, let content = state.content, let created = state.createdAt, let updated = state.updatedAt else { return nil }
        self.id = id.uuidString.lowercased()
        name = content.name
        condition = content.condition.rawValue
        details = content.details
        nodeIds = content.route.nodeIDs
        let positions = content.route.coordinates.compactMap { try? Coordinate(latitude: $0[0], longitude: $0[1]) }.map { Position($0) }
        geometry = (try? LineString(positions)).map(Geometry.lineString)
        lengthMetres = (content.route.lengthMetres * 10).rounded() / 10
        obstacles = content.obstacles.map { obstacle in
            Obstacle(type: obstacle.type.rawValue,
                     point: (try? Coordinate(latitude: obstacle.latitude, longitude: obstacle.longitude)).map { .point(Point(Position($0))) },
                     offsetMetres: (obstacle.offsetMetres * 10).rounded() / 10, note: obstacle.note)
        }
        (createdAt, updatedAt, self.version) = (created, updated, version)
        stage = state.currentStage.rawValue
        source = (state.source ?? .manual).rawValue
        review = state.decision.map { Review(outcome: $0.outcome.rawValue, note: $0.note, decidedAt: $0.decidedAt) }
    }
}

/// One draft in "list mine".
struct PathDraftSummaryResponse: Codable, Sendable {
    var id: String
    var name: String
    var condition: String
    var lengthMetres: Double
    var obstacleCount: Int
    var createdAt: Date
    var updatedAt: Date
    var version: Int64
    var stage: String
    var source: String

    init(_ row: PathDraftRow) {
        source = (row.source ?? .manual).rawValue
        (id, name, condition) = (row.draftId.uuidString.lowercased(), row.name, row.condition.rawValue)
        (lengthMetres, obstacleCount) = ((row.lengthMetres * 10).rounded() / 10, row.obstacleCount)
        (createdAt, updatedAt, version, stage) = (row.createdAt, row.updatedAt, row.version, (row.stage ?? .draft).rawValue)
    }
}

/// `GET /v1/paths/drafts`: a page of the caller's drafts, most recently changed first.
struct PathDraftListResponse: ResponseEncodable, Sendable {
    var drafts: [PathDraftSummaryResponse]
    var nextCursor: String?
}
