import Contracts
import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// Reviews and ratings over HTTP: public lists, the traveller's own review, the guide's reply, reports and moderation.
///
/// | route | who |
/// |---|---|
/// | `GET /v1/tours/{id}/reviews` | anyone |
/// | `POST /v1/tours/{id}/reviews`, `GET`/`PUT /v1/tours/{id}/reviews/me` | travellers (entitled to post and edit) |
/// | `POST /v1/tours/{id}/reviews/{reviewId}/reply` | the tour's guide |
/// | `POST /v1/reviews/{reviewId}/reports` | anyone signed in |
/// | `GET /v1/moderation/reviews`, `POST /v1/reviews/{reviewId}/hide` | moderators and admins |
public struct ReviewRoutes: Sendable {
    public static let defaultLimit = 20
    public static let maximumLimit = 50

    let reviews: ReviewCommands
    /// Public names by user id (auth's profiles through `GuideProfiles`); missing ids have none.
    let userNames: @Sendable ([UUID]) async -> [UUID: String]

    public init(reviews: ReviewCommands, userNames: @escaping @Sendable ([UUID]) async -> [UUID: String] = { _ in [:] }) {
        self.reviews = reviews
        self.userNames = userNames
    }

    /// Mounts the review routes on `routes`, each group with the roles it needs.
    public func addRoutes(to routes: ServiceRoutes) {
        routes.group("/v1/tours").get(":id/reviews", use: list)
        let travellers = routes.authenticated("/v1/tours", requiring: .traveller)
        travellers.post(":id/reviews", use: post)
        travellers.put(":id/reviews/me", use: edit)
        travellers.get(":id/reviews/me", use: showOwn)
        routes.authenticated("/v1/tours", requiring: .guide).post(":id/reviews/:reviewId/reply", use: reply)
        routes.authenticated("/v1/reviews").post(":reviewId/reports", use: report)
        routes.authenticated("/v1/reviews", requiring: .moderator, .admin).post(":reviewId/hide", use: hide)
        routes.authenticated("/v1/moderation/reviews", requiring: .moderator, .admin).get(use: moderationQueue)
    }

    /// `GET /v1/tours/{id}/reviews`: the summary and a page of visible reviews, newest first.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> ReviewListResponse {
        let tourId = try Self.uuid(context, "id", code: "unknown-tour")
        let (cursor, limit) = try Self.paging(request)
        let page = try await reviews.list(tourId: tourId, cursor: cursor, limit: limit)
        let names = await userNames(Array(Set(page.reviews.map(\.authorId))))
        return ReviewListResponse(tourId: tourId.uuidString.lowercased(), summary: ReviewSummaryResponse(page.ratings),
                                  reviews: page.reviews.map { ReviewResponse($0, authorName: names[$0.authorId]) },
                                  nextCursor: page.nextCursor?.encoded)
    }

    /// `POST /v1/tours/{id}/reviews`: 201 with the review and its `Location`.
    @Sendable func post(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<ReviewResponse> {
        let (user, metadata) = try Self.caller(context)
        let tourId = try Self.uuid(context, "id", code: "unknown-tour")
        let body = try await request.decode(as: ReviewRequest.self, context: context)
        let view = try await reviews.post(tourId: tourId, author: user, rating: body.rating, text: body.text, metadata: metadata)
        var headers = HTTPFields()
        headers[.location] = "/v1/tours/\(tourId.uuidString.lowercased())/reviews/me"
        return EditedResponse(status: .created, headers: headers, response: await response(view))
    }

    /// `PUT /v1/tours/{id}/reviews/me`: the edited review.
    @Sendable func edit(_ request: Request, context: ServiceRequestContext) async throws -> ReviewResponse {
        let (user, metadata) = try Self.caller(context)
        let tourId = try Self.uuid(context, "id", code: "unknown-tour")
        let body = try await request.decode(as: ReviewRequest.self, context: context)
        return await response(try await reviews.edit(tourId: tourId, author: user, rating: body.rating, text: body.text, metadata: metadata))
    }

    /// `GET /v1/tours/{id}/reviews/me`: the caller's review of the tour.
    @Sendable func showOwn(_ request: Request, context: ServiceRequestContext) async throws -> ReviewResponse {
        let (user, _) = try Self.caller(context)
        let tourId = try Self.uuid(context, "id", code: "unknown-tour")
        guard let view = try await reviews.myReview(tourId: tourId, author: user) else { throw ReviewError.notFound }
        return await response(view)
    }

    /// `POST /v1/tours/{id}/reviews/{reviewId}/reply`: 201; the tour's guide answers once.
    @Sendable func reply(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<ReviewResponse> {
        let (guide, metadata) = try Self.caller(context)
        let tourId = try Self.uuid(context, "id", code: "unknown-review")
        let reviewId = try Self.uuid(context, "reviewId", code: "unknown-review")
        let body = try await request.decode(as: ReviewReplyRequest.self, context: context)
        let view = try await reviews.reply(tourId: tourId, reviewId: reviewId, guide: guide, text: body.text, metadata: metadata)
        return EditedResponse(status: .created, response: await response(view))
    }

    /// `POST /v1/reviews/{reviewId}/reports`: 201; once per user.
    @Sendable func report(_ request: Request, context: ServiceRequestContext) async throws -> EditedResponse<ReviewReportResponse> {
        let (reporter, metadata) = try Self.caller(context)
        let reviewId = try Self.uuid(context, "reviewId", code: "unknown-review")
        let body = try await request.decode(as: ReviewReportRequest.self, context: context)
        let reason = ReviewReportReason(rawValue: body.reason)!
        let at = try await reviews.report(reviewId: reviewId, reporter: reporter, reason: reason, metadata: metadata)
        return EditedResponse(status: .created, response: ReviewReportResponse(reviewId: reviewId.uuidString.lowercased(),
                                                                                reason: reason.rawValue, reportedAt: at))
    }

    /// `POST /v1/reviews/{reviewId}/hide` (moderators): hides the review for good.
    @Sendable func hide(_ request: Request, context: ServiceRequestContext) async throws -> ReviewResponse {
        let (moderator, metadata) = try Self.caller(context)
        let reviewId = try Self.uuid(context, "reviewId", code: "unknown-review")
        return await response(try await reviews.hide(reviewId: reviewId, moderator: moderator, metadata: metadata))
    }

    /// `GET /v1/moderation/reviews` (moderators): reported reviews, most reported first.
    @Sendable func moderationQueue(_ request: Request, context: ServiceRequestContext) async throws -> ModerationQueueResponse {
        let (cursor, limit) = try Self.paging(request)
        let (items, next) = try await reviews.moderationQueue(cursor: cursor, limit: limit)
        let names = await userNames(Array(Set(items.map(\.review.authorId))))
        return ModerationQueueResponse(reviews: items.map {
            ModerationItemResponse(review: ReviewResponse($0.review, authorName: names[$0.review.authorId]), reports: $0.reports,
                                   reasons: $0.reasons, firstReportedAt: $0.firstReportedAt, lastReportedAt: $0.lastReportedAt)
        }, nextCursor: next?.encoded)
    }

    /// The review as answered, with its author's public name.
    func response(_ view: ReviewView) async -> ReviewResponse {
        ReviewResponse(view, authorName: await userNames([view.authorId])[view.authorId])
    }

    /// The caller's user id and the metadata their events carry.
    static func caller(_ context: ServiceRequestContext) throws -> (UUID, EventMetadata) {
        let user = try context.requireCallerID()
        return (user, EventMetadata(actorID: try context.requireIdentity().subject, traceparent: context.traceparent))
    }

    /// A UUID path parameter; 404 `code` when it is not one.
    static func uuid(_ context: ServiceRequestContext, _ name: String, code: String) throws -> UUID {
        try context.parameters.require(name, as: UUID.self, ifInvalid: .notFound("no such resource", code: code))
    }

    /// `cursor` and `limit` (1–50, default 20); 422 with field errors.
    static func paging(_ request: Request) throws -> (PageCursor?, Int) {
        var validator = Validator()
        let parameters = request.uri.queryParameters
        var limit = defaultLimit
        if let raw = parameters["limit"] {
            let parsed = Int(String(raw))
            validator.require(parsed != nil, field: "limit", code: "not-a-number", message: "must be a whole number")
            validator.range(parsed, field: "limit", 1...maximumLimit)
            limit = parsed ?? defaultLimit
        }
        var cursor: PageCursor?
        if let raw = parameters["cursor"] {
            cursor = PageCursor(encoded: String(raw))
            validator.require(cursor != nil, field: "cursor", code: "invalid-cursor", message: "is not a nextCursor of this list")
        }
        try validator.check()
        return (cursor, limit)
    }
}
