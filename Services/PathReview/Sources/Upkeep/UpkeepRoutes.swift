import EventSourcing
import Foundation
import Hummingbird
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
    var version: Int64

    init(_ state: PathDraftState, version: Int64) throws {
        guard let id = state.draftId, let upkeep = state.upkeep else { throw UpkeepError.unknownPath }
        (pathId, condition, override, retired) = (id.uuidString.lowercased(), upkeep.condition.rawValue, upkeep.override?.rawValue, upkeep.retired)
        (openObstacles, self.version) = (upkeep.openObstacles.count, version)
    }
}

/// Keeping the approved network current (issue 20 point 6, `docs/path-review.md`): any signed-in cyclist reports a
/// path's condition; moderators (and admins) override or lift its published condition and retire it. Repeating an
/// override, or lifting none, changes nothing (safe to retry); a retired path refuses everything with 409 `path-retired`.
struct UpkeepRoutes: Sendable {
    let drafts: PathDrafts

    /// Mounts the routes.
    func addRoutes(to routes: ServiceRoutes) {
        routes.authenticated("/v1/paths").post(":id/condition-reports", use: report)
        let moderated = routes.authenticated("/v1/paths", requiring: .moderator, .admin)
        moderated.put(":id/status-override", use: override)
        moderated.delete(":id/status-override", use: lift)
        moderated.post(":id/retire", use: retire)
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
