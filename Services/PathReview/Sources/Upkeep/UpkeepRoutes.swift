import EventSourcing
import Foundation
import Hummingbird
import RoadNetwork
import ServiceKit

extension PathDrafts {
    /// `reporter` reports approved path `id`'s condition; the published condition follows ``PathStatusRule``.
    public func reportCondition(_ id: UUID, reporter: UUID, condition: PathCondition, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        try await execute(.reportCondition(reporter: reporter, condition: condition, at: now()), on: id, ifMatch: nil, metadata: metadata)
    }

    /// `moderator` overrides path `id`'s published condition, or lifts the override (`nil`).
    public func overrideStatus(_ id: UUID, moderator: UUID, condition: PathCondition?, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        try await execute(.overrideStatus(moderator: moderator, condition: condition, at: now()), on: id, ifMatch: nil, metadata: metadata)
    }

    /// `reporter` reports `obstacle` (already placed on the path) on path `id`.
    public func reportObstacle(_ id: UUID, reporter: UUID, obstacle: DraftObstacle, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        try await execute(.reportObstacle(reporter: reporter, obstacle: obstacle, at: now()), on: id, ifMatch: nil, metadata: metadata)
    }

    /// `user` saw path `id`'s open obstacle `obstacleId` again.
    public func confirmObstacle(_ id: UUID, obstacleId: UUID, user: UUID, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        try await execute(.confirmObstacle(user: user, obstacleId: obstacleId, at: now()), on: id, ifMatch: nil, metadata: metadata)
    }

    /// `user` reports path `id`'s open obstacle `obstacleId` gone (the second cyclist's report resolves it).
    public func reportGone(_ id: UUID, obstacleId: UUID, user: UUID, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        try await execute(.reportGone(user: user, obstacleId: obstacleId, at: now()), on: id, ifMatch: nil, metadata: metadata)
    }

    /// `moderator` resolves path `id`'s open obstacle `obstacleId`.
    public func resolveObstacle(_ id: UUID, obstacleId: UUID, moderator: UUID, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        try await execute(.resolveObstacle(moderator: moderator, obstacleId: obstacleId, at: now()), on: id, ifMatch: nil, metadata: metadata)
    }

    /// Approved path `id`'s state (``UpkeepError/unknownPath`` when it is none).
    public func approvedPath(_ id: UUID) async throws -> PathDraftState {
        let state = try await repository.load(PathDraftAggregate.streamID(id)).state
        guard state.upkeep != nil, state.content != nil else { throw UpkeepError.unknownPath }
        return state
    }

    /// `moderator` retires path `id` (final).
    public func retire(_ id: UUID, moderator: UUID, metadata: EventMetadata) async throws -> (PathDraftState, Int64) {
        try await execute(.retire(moderator: moderator, at: now()), on: id, ifMatch: nil, metadata: metadata)
    }
}

/// `POST /v1/paths/{id}/condition-reports` and `PUT /v1/paths/{id}/status-override`.
struct ConditionBody: Codable, Sendable, ValidatableRequest {
    var condition: String

    func validate(into validator: inout Validator) {
        validator.oneOf(condition, field: "condition", allowed: PathCondition.allCases.map(\.rawValue))
    }
}

/// Where an approved path stands after an upkeep command.
struct PathUpkeepResponse: ResponseEncodable, Sendable {
    var pathId: String
    /// The published condition.
    var condition: String
    /// The moderator's override, while it holds.
    var override: String?
    var retired: Bool
    var openObstacles: Int
    /// The open obstacles (first seen first): what `confirm` and `resolve` name.
    var obstacles: [ApprovedPathFeature.Obstacle]
    var version: Int64

    init(_ state: PathDraftState, version: Int64) throws {
        guard let id = state.draftId, let upkeep = state.upkeep else { throw UpkeepError.unknownPath }
        (pathId, condition, override, retired) = (id.uuidString.lowercased(), upkeep.condition.rawValue, upkeep.override?.rawValue, upkeep.retired)
        (openObstacles, self.version) = (upkeep.openObstacles.count, version)
        obstacles = upkeep.obstacles.map {
            ApprovedPathFeature.Obstacle(id: $0.id.uuidString.lowercased(), type: $0.type.rawValue, latitude: $0.latitude, longitude: $0.longitude,
                                         confidence: $0.confidence, sightings: $0.sightings, lastConfirmedAt: $0.lastConfirmedAt)
        }
    }
}

/// Keeping the approved network current (issue 20 point 6, `docs/path-review.md`): any signed-in cyclist reports a
/// path's condition; moderators (and admins) override or lift its published condition and retire it. Repeating an
/// override, or lifting none, changes nothing (safe to retry); a retired path refuses everything with 409 `path-retired`.
struct UpkeepRoutes: Sendable {
    let drafts: PathDrafts
    /// Places reported obstacles on the path (≤ 30 m, as a draft's).
    let planner: PathDraftPlanner

    /// Mounts the routes.
    func addRoutes(to routes: ServiceRoutes) {
        let signedIn = routes.authenticated("/v1/paths")
        signedIn.post(":id/condition-reports", use: report)
        signedIn.post(":id/obstacles", use: reportObstacle)
        signedIn.post(":id/obstacles/:obstacleId/confirm", use: confirmObstacle)
        signedIn.post(":id/obstacles/:obstacleId/gone", use: reportGone)
        let moderated = routes.authenticated("/v1/paths", requiring: .moderator, .admin)
        moderated.put(":id/status-override", use: override)
        moderated.delete(":id/status-override", use: lift)
        moderated.post(":id/retire", use: retire)
        moderated.post(":id/obstacles/:obstacleId/resolve", use: resolveObstacle)
    }

    /// `POST /v1/paths/{id}/obstacles` `{type, point: {lat, lng}, note?}`: placed on the path (422 `off-path` beyond 30 m),
    /// clustered into the open obstacles.
    @Sendable func reportObstacle(_ request: Request, context: ServiceRequestContext) async throws -> PathUpkeepResponse {
        let (user, metadata) = try PathDraftRoutes.caller(context)
        let id = try Self.pathID(context)
        let body = try await request.decode(as: ObstacleBody.self, context: context)
        let path = try await drafts.approvedPath(id)
        guard !(path.upkeep?.retired ?? true) else { throw UpkeepError.retired }
        var validator = Validator()
        validator.oneOf(body.type, field: "type", allowed: PathObstacleType.allCases.map(\.rawValue))
        let route = path.content!.route
        let leg = DraftLeg(nodeIDs: route.nodeIDs, points: route.coordinates.compactMap { $0.count == 2 ? RoadPoint(latitude: $0[0], longitude: $0[1]) : nil })
        let requests = PathObstacleType(rawValue: body.type).map { [DraftObstacleRequest(type: $0, point: body.point.point, note: body.note)] } ?? []
        let placed = planner.place(requests, on: leg.points.count >= 2 ? leg : nil, into: &validator)
        try validator.check()
        guard let obstacle = placed.first else { throw Problem.unprocessable(fieldErrors: []) }
        return try Self.respond(try await drafts.reportObstacle(id, reporter: user, obstacle: obstacle, metadata: metadata))
    }

    @Sendable func confirmObstacle(_ request: Request, context: ServiceRequestContext) async throws -> PathUpkeepResponse {
        let (user, metadata) = try PathDraftRoutes.caller(context)
        return try Self.respond(try await drafts.confirmObstacle(try Self.pathID(context), obstacleId: try Self.obstacleID(context), user: user, metadata: metadata))
    }

    /// `POST /v1/paths/{id}/obstacles/{obstacleId}/gone`: the caller saw it gone; a second cyclist's report (since its
    /// last confirmation) resolves it. Repeating one's own report changes nothing.
    @Sendable func reportGone(_ request: Request, context: ServiceRequestContext) async throws -> PathUpkeepResponse {
        let (user, metadata) = try PathDraftRoutes.caller(context)
        return try Self.respond(try await drafts.reportGone(try Self.pathID(context), obstacleId: try Self.obstacleID(context), user: user, metadata: metadata))
    }

    @Sendable func resolveObstacle(_ request: Request, context: ServiceRequestContext) async throws -> PathUpkeepResponse {
        let (moderator, metadata) = try PathDraftRoutes.caller(context)
        return try Self.respond(try await drafts.resolveObstacle(try Self.pathID(context), obstacleId: try Self.obstacleID(context), moderator: moderator,
                                                              metadata: metadata))
    }

    /// The `{obstacleId}` path parameter; 404 `unknown-obstacle` when it is not a UUID.
    static func obstacleID(_ context: ServiceRequestContext) throws -> UUID {
        try context.parameters.require("obstacleId", as: UUID.self, ifInvalid: UpkeepError.unknownObstacle.problem)
    }

    @Sendable func report(_ request: Request, context: ServiceRequestContext) async throws -> PathUpkeepResponse {
        let (user, metadata) = try PathDraftRoutes.caller(context)
        let body = try await request.decode(as: ConditionBody.self, context: context)
        let condition = try Self.condition(body.condition)
        return try Self.respond(try await drafts.reportCondition(try Self.pathID(context), reporter: user, condition: condition, metadata: metadata))
    }

    @Sendable func override(_ request: Request, context: ServiceRequestContext) async throws -> PathUpkeepResponse {
        let (moderator, metadata) = try PathDraftRoutes.caller(context)
        let body = try await request.decode(as: ConditionBody.self, context: context)
        let condition = try Self.condition(body.condition)
        return try Self.respond(try await drafts.overrideStatus(try Self.pathID(context), moderator: moderator, condition: condition, metadata: metadata))
    }

    @Sendable func lift(_ request: Request, context: ServiceRequestContext) async throws -> PathUpkeepResponse {
        let (moderator, metadata) = try PathDraftRoutes.caller(context)
        return try Self.respond(try await drafts.overrideStatus(try Self.pathID(context), moderator: moderator, condition: PathCondition?.none, metadata: metadata))
    }

    @Sendable func retire(_ request: Request, context: ServiceRequestContext) async throws -> PathUpkeepResponse {
        let (moderator, metadata) = try PathDraftRoutes.caller(context)
        return try Self.respond(try await drafts.retire(try Self.pathID(context), moderator: moderator, metadata: metadata))
    }

    static func respond(_ result: (PathDraftState, Int64)) throws -> PathUpkeepResponse {
        try PathUpkeepResponse(result.0, version: result.1)
    }

    static func condition(_ text: String) throws -> PathCondition {
        guard let condition = PathCondition(rawValue: text) else { throw Problem.unprocessable(fieldErrors: []) }
        return condition
    }

    /// The `{id}` path parameter; 404 `unknown-path` when it is not a UUID.
    static func pathID(_ context: ServiceRequestContext) throws -> UUID {
        try context.parameters.require("id", as: UUID.self, ifInvalid: UpkeepError.unknownPath.problem)
    }
}
