import Contracts
import EventSourcing
import Foundation
import Hummingbird
import ServiceKit

/// `POST /v1/tours/{id}/reviews` and `PUT /v1/tours/{id}/reviews/me`.
public struct ReviewRequest: Decodable, Sendable, ValidatableRequest {
    public var rating: Int
    /// Plain text; cleaned (``ReviewText``) and at most 2,000 characters; absent, `null` or blank = no text.
    public var text: String?

    public func validate(into validator: inout Validator) {
        validator.range(rating, field: "rating", ReviewAggregate.ratings)
        _ = ReviewText.validated(text, field: "text", into: &validator)
    }
}

/// `POST /v1/tours/{id}/reviews/{reviewId}/reply`.
public struct ReviewReplyRequest: Decodable, Sendable, ValidatableRequest {
    public var text: String

    public func validate(into validator: inout Validator) {
        _ = ReviewText.validated(text, field: "text", required: true, into: &validator)
    }
}

/// `POST /v1/reviews/{reviewId}/reports`.
public struct ReviewReportRequest: Decodable, Sendable, ValidatableRequest {
    public var reason: String

    public func validate(into validator: inout Validator) {
        validator.oneOf(reason, field: "reason", allowed: ReviewReportReason.allCases.map(\.rawValue))
    }
}

/// A review as the API shows it.
struct ReviewResponse: ResponseEncodable {
    struct Author: Codable, Sendable {
        var id: String
        /// Public name from auth; absent while unknown and for suspended or erased accounts.
        var name: String?
    }

    struct Reply: Codable, Sendable {
        /// Absent when the guide's account was erased.
        var text: String?
        var repliedAt: Date
    }

    var id: String
    var tourId: String
    var author: Author
    var rating: Int
    var text: String?
    var reply: Reply?
    var postedAt: Date
    var editedAt: Date?
    var hidden: Bool

    init(_ view: ReviewView, authorName: String?) {
        id = view.reviewId.uuidString.lowercased()
        tourId = view.tourId.uuidString.lowercased()
        author = Author(id: view.authorId.uuidString.lowercased(), name: authorName)
        rating = view.rating
        text = view.text
        reply = view.reply.map { Reply(text: $0.text, repliedAt: $0.repliedAt) }
        postedAt = view.postedAt
        editedAt = view.editedAt
        hidden = view.hidden
    }
}

/// A tour's ratings: what the reviews page shows above the list.
struct ReviewSummaryResponse: Codable, Sendable {
    /// Visible reviews per star.
    struct Histogram: Codable, Sendable {
        var one, two, three, four, five: Int

        enum CodingKeys: String, CodingKey {
            case one = "1", two = "2", three = "3", four = "4", five = "5"
        }
    }

    var count: Int
    var average: Double?
    var bayesian: Double
    var histogram: Histogram

    init(_ ratings: ReviewRatings) {
        let rating = ratings.rating
        count = rating.count
        average = rating.average
        bayesian = rating.bayesian
        let h = ratings.histogram
        histogram = Histogram(one: h[0], two: h[1], three: h[2], four: h[3], five: h[4])
    }
}

/// `GET /v1/tours/{id}/reviews`.
struct ReviewListResponse: ResponseEncodable {
    var tourId: String
    var summary: ReviewSummaryResponse
    var reviews: [ReviewResponse]
    var nextCursor: String?
}

/// `POST /v1/reviews/{reviewId}/reports`.
struct ReviewReportResponse: ResponseEncodable {
    var reviewId: String
    var reason: String
    var reportedAt: Date
}

/// One entry of `GET /v1/moderation/reviews`.
struct ModerationItemResponse: Encodable, Sendable {
    var review: ReviewResponse
    var reports: Int
    var reasons: [String: Int]
    var firstReportedAt: Date?
    var lastReportedAt: Date?
}

struct ModerationQueueResponse: ResponseEncodable {
    var reviews: [ModerationItemResponse]
    var nextCursor: String?
}

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

    public func add(to routes: ServiceRoutes) {
        let reviews = reviews, userNames = userNames

        @Sendable func respond(_ view: ReviewView) async -> ReviewResponse {
            ReviewResponse(view, authorName: await userNames([view.authorId])[view.authorId])
        }

        routes.group("/v1/tours").get(":id/reviews") { request, context -> ReviewListResponse in
            let tourId = try Self.uuid(context, "id", code: "unknown-tour")
            let (cursor, limit) = try Self.paging(request)
            let page = try await reviews.list(tourId: tourId, cursor: cursor, limit: limit)
            let names = await userNames(Array(Set(page.reviews.map(\.authorId))))
            return ReviewListResponse(tourId: tourId.uuidString.lowercased(), summary: ReviewSummaryResponse(page.ratings),
                                      reviews: page.reviews.map { ReviewResponse($0, authorName: names[$0.authorId]) },
                                      nextCursor: page.nextCursor?.encoded)
        }

        let travellers = routes.authenticated("/v1/tours", requiring: .traveller)
        travellers.post(":id/reviews") { request, context -> EditedResponse<ReviewResponse> in
            let (user, metadata) = try Self.caller(context)
            let tourId = try Self.uuid(context, "id", code: "unknown-tour")
            let body = try await request.decode(as: ReviewRequest.self, context: context)
            let view = try await reviews.post(tourId: tourId, author: user, rating: body.rating, text: body.text, metadata: metadata)
            var headers = HTTPFields()
            headers[.location] = "/v1/tours/\(tourId.uuidString.lowercased())/reviews/me"
            return EditedResponse(status: .created, headers: headers, response: await respond(view))
        }
        travellers.put(":id/reviews/me") { request, context -> ReviewResponse in
            let (user, metadata) = try Self.caller(context)
            let tourId = try Self.uuid(context, "id", code: "unknown-tour")
            let body = try await request.decode(as: ReviewRequest.self, context: context)
            return await respond(try await reviews.edit(tourId: tourId, author: user, rating: body.rating, text: body.text, metadata: metadata))
        }
        travellers.get(":id/reviews/me") { _, context -> ReviewResponse in
            let (user, _) = try Self.caller(context)
            let tourId = try Self.uuid(context, "id", code: "unknown-tour")
            guard let view = try await reviews.myReview(tourId: tourId, author: user) else { throw ReviewError.notFound.problem }
            return await respond(view)
        }

        routes.authenticated("/v1/tours", requiring: .guide).post(":id/reviews/:reviewId/reply") { request, context
            -> EditedResponse<ReviewResponse> in
            let (guide, metadata) = try Self.caller(context)
            let tourId = try Self.uuid(context, "id", code: "unknown-review")
            let reviewId = try Self.uuid(context, "reviewId", code: "unknown-review")
            let body = try await request.decode(as: ReviewReplyRequest.self, context: context)
            let view = try await reviews.reply(tourId: tourId, reviewId: reviewId, guide: guide, text: body.text, metadata: metadata)
            return EditedResponse(status: .created, response: await respond(view))
        }

        routes.authenticated("/v1/reviews").post(":reviewId/reports") { request, context -> EditedResponse<ReviewReportResponse> in
            let (reporter, metadata) = try Self.caller(context)
            let reviewId = try Self.uuid(context, "reviewId", code: "unknown-review")
            let body = try await request.decode(as: ReviewReportRequest.self, context: context)
            let reason = ReviewReportReason(rawValue: body.reason)!
            let at = try await reviews.report(reviewId: reviewId, reporter: reporter, reason: reason, metadata: metadata)
            return EditedResponse(status: .created, response: ReviewReportResponse(reviewId: reviewId.uuidString.lowercased(),
                                                                                    reason: reason.rawValue, reportedAt: at))
        }

        routes.authenticated("/v1/reviews", requiring: .moderator, .admin).post(":reviewId/hide") { _, context -> ReviewResponse in
            let (moderator, metadata) = try Self.caller(context)
            let reviewId = try Self.uuid(context, "reviewId", code: "unknown-review")
            return await respond(try await reviews.hide(reviewId: reviewId, moderator: moderator, metadata: metadata))
        }

        routes.authenticated("/v1/moderation/reviews", requiring: .moderator, .admin).get { request, _ -> ModerationQueueResponse in
            let (cursor, limit) = try Self.paging(request)
            let (items, next) = try await reviews.moderationQueue(cursor: cursor, limit: limit)
            let names = await userNames(Array(Set(items.map(\.review.authorId))))
            return ModerationQueueResponse(reviews: items.map {
                ModerationItemResponse(review: ReviewResponse($0.review, authorName: names[$0.review.authorId]), reports: $0.reports,
                                       reasons: $0.reasons, firstReportedAt: $0.firstReportedAt, lastReportedAt: $0.lastReportedAt)
            }, nextCursor: next?.encoded)
        }
    }

    /// The caller's user id and the metadata their events carry.
    static func caller(_ context: ServiceRequestContext) throws -> (UUID, EventMetadata) {
        let identity = try context.requireIdentity()
        guard let user = UUID(uuidString: identity.subject) else { throw Problem.forbidden("unknown caller") }
        return (user, EventMetadata(actorID: identity.subject, traceparent: context.traceparent))
    }

    /// A UUID path parameter; 404 `code` when it is not one.
    static func uuid(_ context: ServiceRequestContext, _ name: String, code: String) throws -> UUID {
        guard let id = UUID(uuidString: try context.parameters.require(name)) else { throw Problem.notFound("no such resource", code: code) }
        return id
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
