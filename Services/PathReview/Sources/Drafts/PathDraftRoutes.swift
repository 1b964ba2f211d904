import Contracts
import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// The author's draft routes under `/v1/paths/drafts` (any signed-in user; each sees only their own drafts).
public struct PathDraftRoutes: Sendable {
    let drafts: PathDrafts
    let planner: PathDraftPlanner
    let status: StreetStatus

    static let defaultLimit = 20
    static let maximumLimit = 100

    /// The routes over the drafts feature, resolving pieces with `planner` and judging streets by `status` now.
    public init(drafts: PathDrafts, planner: PathDraftPlanner, status: StreetStatus) {
        self.drafts = drafts
        self.planner = planner
        self.status = status
    }

    /// The body's content planned on the network, its streets judged as they are now (approved paths, marks).
    func content(of body: PathDraftBody) async throws -> PathDraftContent {
        try body.content(planner: planner.judging(try await status.compatibilities(of: body.streetIDs)))
    }

    /// Mounts every draft route.
    public func addRoutes(to routes: ServiceRoutes) {
        let group = routes.authenticated("/v1/paths/drafts")
        group.post(use: create)
        group.get(use: list)
        group.get(":id", use: show)
        group.put(":id", use: replace)
        group.delete(":id", use: delete)
        group.post(":id/publish", use: publish)
        group.get(":id/history", use: history)
    }

    /// `GET /v1/paths/drafts/{id}/history?after=&limit=`: every step of the path's life, oldest first — for its author
    /// and, once published, for moderators and admins (who also see who acted).
    @Sendable func history(_ request: Request, context: ServiceRequestContext) async throws -> PathHistoryResponse {
        let identity = try context.requireIdentity()
        let caller = try context.requireCallerID()
        let query = request.uri.queryParameters
        var validator = Validator()
        let limit = query.get("limit").map { Int($0) ?? -1 } ?? 100
        validator.range(limit, field: "limit", 1...500)
        let after = query.get("after").map { Int64($0) ?? -1 } ?? 0
        validator.require(after >= 0, field: "after", code: "out-of-range", message: "must be a version (0 or more), the nextAfter of a page")
        try validator.check()
        return try await drafts.history(try Self.draftID(context), caller: caller, moderating: identity.role == .moderator || identity.role == .admin,
                                        after: after, limit: limit)
    }

    /// `POST /v1/paths/drafts/{id}/publish`: the draft enters the review queue (stage `in-review`).
    @Sendable func publish(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<PathDraftResponse> {
        let (author, metadata) = try Self.caller(context)
        return try Self.respond(try await drafts.submit(try Self.draftID(context), author: author, metadata: metadata))
    }

    /// `POST /v1/paths/drafts`: 201 with the draft, `Location` and `ETag`.
    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<PathDraftResponse> {
        let (author, metadata) = try Self.caller(context)
        let content = try await self.content(of: try await request.decode(as: PathDraftBody.self, context: context))
        return try Self.respond(try await drafts.create(UUID.v7(), author: author, content: content, metadata: metadata), status: .created)
    }

    /// `GET /v1/paths/drafts/{id}`: the author's draft with its `ETag`.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<PathDraftResponse> {
        try Self.respond(try await drafts.draft(try Self.draftID(context), author: try context.requireCallerID()))
    }

    /// `PUT /v1/paths/drafts/{id}` with `If-Match` (required): the whole draft replaced.
    @Sendable func replace(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<PathDraftResponse> {
        let (author, metadata) = try Self.caller(context)
        let id = try Self.draftID(context)
        guard let version = try Self.ifMatch(request) else {
            throw Problem(status: HTTPResponse.Status(code: 428, reasonPhrase: "Precondition Required"), code: "if-match-required",
                          title: "If-Match required", detail: "Send the draft's ETag as If-Match: a draft is replaced only at the version you read.")
        }
        let content = try await self.content(of: try await request.decode(as: PathDraftBody.self, context: context))
        return try Self.respond(try await drafts.revise(id, author: author, content: content, ifMatch: version, metadata: metadata))
    }

    /// `DELETE /v1/paths/drafts/{id}` (`If-Match` optional): 204.
    @Sendable func delete(_ request: Request, context: ServiceRequestContext) async throws -> HTTPResponse.Status {
        let (author, metadata) = try Self.caller(context)
        try await drafts.delete(try Self.draftID(context), author: author, ifMatch: try Self.ifMatch(request), metadata: metadata)
        return .noContent
    }

    /// `GET /v1/paths/drafts?limit=&cursor=`: the caller's drafts, most recently changed first.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> PathDraftListResponse {
        let author = try context.requireCallerID()
        let query = request.uri.queryParameters
        var validator = Validator()
        let limit = query.get("limit").map { Int($0) ?? -1 } ?? Self.defaultLimit
        validator.range(limit, field: "limit", 1...Self.maximumLimit)
        let cursor = query.get("cursor").flatMap { PageCursor(encoded: $0) }
        validator.require(query.get("cursor") == nil || cursor != nil, field: "cursor", code: "invalid-cursor", message: "is not a nextCursor of this list")
        try validator.check()
        let rows = try await drafts.list(author: author, after: cursor, limit: limit + 1)
        let page = rows.prefix(limit)
        let next = rows.count > limit ? page.last.map { PageCursor(key: $0.sortKey, id: $0.draftId).encoded } : nil
        return PathDraftListResponse(drafts: page.map(PathDraftSummaryResponse.init), nextCursor: next)
    }

    /// The draft with its version as `ETag` (and `Location` when created).
    static func respond(_ result: (PathDraftState, Int64), status: HTTPResponse.Status = .ok) throws -> EditedResponse<PathDraftResponse> {
        guard let body = PathDraftResponse(result.0, version: result.1) else { throw PathDraftError.notFound }
        var headers = HTTPFields()
        headers[.eTag] = "\"\(result.1)\""
        if status == .created { headers[.location] = "/v1/paths/drafts/\(body.id)" }
        return EditedResponse(status: status, headers: headers, response: body)
    }

    static func caller(_ context: ServiceRequestContext) throws -> (UUID, EventMetadata) {
        let user = try context.requireCallerID()
        return (user, EventMetadata(actorID: try context.requireIdentity().subject, traceparent: context.traceparent))
    }

    /// The `{id}` path parameter; 404 `unknown-draft` when it is not a UUID.
    static func draftID(_ context: ServiceRequestContext) throws -> UUID {
        try context.parameters.require("id", as: UUID.self, ifInvalid: PathDraftError.notFound.problem)
    }

    /// `If-Match: "7"` (or `7`): the version the caller's edit is based on.
    static func ifMatch(_ request: Request) throws -> Int64? {
        guard let raw = request.headers[.ifMatch] else { return nil }
        guard let version = Int64(raw.trimmingCharacters(in: CharacterSet(charactersIn: "\" W/"))) else {
            throw Problem.badRequest("If-Match must be a version previously returned in ETag", code: "bad-if-match")
        }
        return version
    }
}
