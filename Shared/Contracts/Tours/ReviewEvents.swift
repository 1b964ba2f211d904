import Foundation

// The published language of `tour-management` on `waypoint.tours`: travellers' reviews of tours (issue 6).
//
// Stream `review-<tourId>-<userId>`: the traveller's review of the tour and the guide's reply. User ids are
// pseudonymous; free text written by a person (review text, reply) is sealed with that person's key
// (`SealedPersonalData`), so erasing the key erases the words.

/// A traveller who owns the tour rated it (one review per traveller per tour).
public struct ReviewPosted: IntegrationEvent {
    public static let eventType = "ReviewPosted"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var reviewId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    /// 1–5.
    public var rating: Int
    /// Plain text (control characters stripped), ≤ 2,000 characters, sealed with the reviewer's key; `nil` = no text.
    public var text: SealedPersonalData?
    public var postedAt: Date

    public init(reviewId: UUID, tourId: UUID, userId: UUID, guideId: UUID, rating: Int, text: SealedPersonalData?, postedAt: Date) {
        self.reviewId = reviewId
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.rating = rating
        self.text = text
        self.postedAt = postedAt
    }
}

/// The reviewer changed their review (whole new rating and text).
public struct ReviewEdited: IntegrationEvent {
    public static let eventType = "ReviewEdited"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var reviewId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    /// The rating before the edit (aggregates move it to `rating`).
    public var previousRating: Int
    public var rating: Int
    public var text: SealedPersonalData?
    public var editedAt: Date

    public init(reviewId: UUID, tourId: UUID, userId: UUID, guideId: UUID, previousRating: Int, rating: Int, text: SealedPersonalData?,
                editedAt: Date) {
        self.reviewId = reviewId
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.previousRating = previousRating
        self.rating = rating
        self.text = text
        self.editedAt = editedAt
    }
}

/// The tour's guide answered a review (once).
public struct ReviewReplied: IntegrationEvent {
    public static let eventType = "ReviewReplied"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var reviewId: UUID
    public var tourId: UUID
    public var guideId: UUID
    /// Plain text ≤ 2,000 characters, sealed with the guide's key.
    public var reply: SealedPersonalData
    public var repliedAt: Date

    public init(reviewId: UUID, tourId: UUID, guideId: UUID, reply: SealedPersonalData, repliedAt: Date) {
        self.reviewId = reviewId
        self.tourId = tourId
        self.guideId = guideId
        self.reply = reply
        self.repliedAt = repliedAt
    }
}

/// A moderator hid a review (after reports), or its author's account was erased: it no longer shows or counts.
public struct ReviewHidden: IntegrationEvent {
    public static let eventType = "ReviewHidden"
    public static let schemaVersion = 1
    public static let topic = Topic.tours

    public var reviewId: UUID
    public var tourId: UUID
    public var userId: UUID
    public var guideId: UUID
    /// The rating that stops counting.
    public var rating: Int
    /// The moderator; `nil` when the system hid it (author erased).
    public var hiddenBy: UUID?
    /// `moderation` or `author-erased`.
    public var reason: String
    public var hiddenAt: Date

    public init(reviewId: UUID, tourId: UUID, userId: UUID, guideId: UUID, rating: Int, hiddenBy: UUID?, reason: String, hiddenAt: Date) {
        self.reviewId = reviewId
        self.tourId = tourId
        self.userId = userId
        self.guideId = guideId
        self.rating = rating
        self.hiddenBy = hiddenBy
        self.reason = reason
        self.hiddenAt = hiddenAt
    }
}
