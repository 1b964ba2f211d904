import Foundation
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
