import Foundation
import Hummingbird
import ServiceKit

/// `POST /v1/paths/review-queue/{id}/decision`.
struct DecisionBody: Codable, Sendable, ValidatableRequest {
    var outcome: String
    /// The reason (reject) or the changes asked for (send back): required for both; optional for approve.
    var note: String?

    func validate(into validator: inout Validator) {
        validator.oneOf(outcome, field: "outcome", allowed: ReviewOutcome.allCases.map(\.rawValue))
        let trimmed = note?.trimmingCharacters(in: .whitespacesAndNewlines)
        if outcome != ReviewOutcome.approve.rawValue {
            validator.require(!(trimmed ?? "").isEmpty, field: "note", code: "required",
                              message: "give the reason (reject) or the changes asked for (send back)")
        }
        validator.length(trimmed, field: "note", max: 1_000)
    }
}

/// One queue item as moderators list it.
struct ReviewQueueItemResponse: Codable, Sendable {
    var draftId: String
    var name: String
    var submittedAt: Date
    /// West, south, east, north of the route, degrees.
    var bbox: [Double]
    /// The moderator holding it and until when, while the claim lasts.
    var claimedBy: String?
    var claimExpiresAt: Date?

    init(_ row: ReviewQueueRow, now: Date) {
        (draftId, name, submittedAt, bbox) = (row.draftId.uuidString.lowercased(), row.name, row.submittedAt, [row.west, row.south, row.east, row.north])
        if let claim = row.claim, claim.expiresAt > now { (claimedBy, claimExpiresAt) = (claim.moderatorId.uuidString.lowercased(), claim.expiresAt) }
    }
}

/// `GET /v1/paths/review-queue`.
struct ReviewQueueResponse: ResponseEncodable, Sendable {
    var items: [ReviewQueueItemResponse]
    var nextCursor: String?
}

/// The moderators' routes under `/v1/paths/review-queue`: the queue oldest first (filtered by area), one item, claim,
/// decision. Moderators and admins only.
public struct ReviewRoutes: Sendable {
    let drafts: PathDrafts

    /// The routes over the drafts feature.
    public init(drafts: PathDrafts) {
        self.drafts = drafts
    }

    /// Mounts every review route.
    public func addRoutes(to routes: ServiceRoutes) {
        let queue = routes.authenticated("/v1/paths/review-queue", requiring: .moderator, .admin)
        queue.get(use: list)
        queue.get(":id", use: show)
        queue.post(":id/claim", use: claim)
        queue.post(":id/decision", use: decide)
    }

    /// `GET /v1/paths/review-queue?bbox=west,south,east,north&limit=&cursor=`: oldest first.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> ReviewQueueResponse {
        _ = try context.requireCallerID()
        let query = request.uri.queryParameters
        var validator = Validator()
        let limit = query.get("limit").map { Int($0) ?? -1 } ?? 20
        validator.range(limit, field: "limit", 1...100)
        let area = query.get("bbox").map(Self.area)
        validator.require(area == nil || area! != nil, field: "bbox", code: "out-of-range",
                          message: "must be west,south,east,north in degrees with west ≤ east and south ≤ north")
        let cursor = query.get("cursor").flatMap { PageCursor(encoded: $0) }
        validator.require(query.get("cursor") == nil || cursor != nil, field: "cursor", code: "invalid-cursor", message: "is not a nextCursor of this list")
        try validator.check()
        let rows = try await drafts.queue(area: area ?? nil, after: cursor, limit: limit + 1)
        let page = rows.prefix(limit)
        let next = rows.count > limit ? page.last.map { PageCursor(key: $0.sortKey, id: $0.draftId).encoded } : nil
        let now = drafts.now()
        return ReviewQueueResponse(items: page.map { ReviewQueueItemResponse($0, now: now) }, nextCursor: next)
    }

    /// `GET /v1/paths/review-queue/{id}`: the published draft with its route and obstacles.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<PathDraftResponse> {
        _ = try context.requireCallerID()
        return try PathDraftRoutes.respond(try await drafts.reviewItem(try Self.itemID(context)))
    }

    /// `POST /v1/paths/review-queue/{id}/claim`: the caller holds the item (409 while another moderator does).
    @Sendable func claim(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<PathDraftResponse> {
        let (moderator, metadata) = try PathDraftRoutes.caller(context)
        return try PathDraftRoutes.respond(try await drafts.claim(try Self.itemID(context), moderator: moderator, metadata: metadata))
    }

    /// `POST /v1/paths/review-queue/{id}/decision`: approve, reject (with a reason) or send back (with the changes).
    @Sendable func decide(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<PathDraftResponse> {
        let (moderator, metadata) = try PathDraftRoutes.caller(context)
        let id = try Self.itemID(context)
        let body = try await request.decode(as: DecisionBody.self, context: context)
        let note = body.note?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let outcome = ReviewOutcome(rawValue: body.outcome) else { throw Problem.unprocessable(fieldErrors: []) }
        return try PathDraftRoutes.respond(try await drafts.decide(id, moderator: moderator, outcome: outcome,
                                                                   note: note?.isEmpty == true ? nil : note, metadata: metadata))
    }

    /// `west,south,east,north` in range and in order (``ApprovedPathListing/box(_:)``, the service's one bbox rule),
    /// `nil` otherwise.
    static func area(_ text: String) -> QueueArea? {
        ApprovedPathListing.box(text).map { QueueArea(south: $0.south, west: $0.west, north: $0.north, east: $0.east) }
    }

    /// The `{id}` path parameter; 404 `unknown-review-item` when it is not a UUID.
    static func itemID(_ context: ServiceRequestContext) throws -> UUID {
        try context.parameters.require("id", as: UUID.self, ifInvalid: ReviewError.notInReview.problem)
    }
}
