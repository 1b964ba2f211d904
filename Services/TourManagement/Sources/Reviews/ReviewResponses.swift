import Foundation
import Hummingbird
import ServiceKit

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
