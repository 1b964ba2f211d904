import Contracts
import EventSourcing
import Foundation
import ServiceKit

/// Someone reported a review for moderation. **Internal** to tour-management: it stays in the service's log (stream
/// `review-<tourId>-<userId>`, so "one report per user per review" is decided there) and never leaves on
/// `waypoint.tours` — see ``ReviewEvents/isPublished(_:)``. It carries no free text (the reason is a code), so no
/// personal data beyond pseudonymous ids.
public struct ReviewReported: EventPayload, Hashable {
    public static let eventType = "ReviewReported"
    public static let schemaVersion = 1

    public var reviewId: UUID
    public var tourId: UUID
    /// The review's author.
    public var userId: UUID
    public var reporterId: UUID
    /// A ``ReviewReportReason`` raw value.
    public var reason: String
    public var reportedAt: Date

    public init(reviewId: UUID, tourId: UUID, userId: UUID, reporterId: UUID, reason: String, reportedAt: Date) {
        self.reviewId = reviewId
        self.tourId = tourId
        self.userId = userId
        self.reporterId = reporterId
        self.reason = reason
        self.reportedAt = reportedAt
    }
}

/// Why a review was reported.
public enum ReviewReportReason: String, Codable, Sendable, Hashable, CaseIterable {
    case spam
    case offensive
    case offTopic = "off-topic"
    case falseInformation = "false-information"
    case personalData = "personal-data"
    case other
}

/// Every event of a review stream.
public enum ReviewEvent: Sendable {
    case posted(ReviewPosted)
    case edited(ReviewEdited)
    case replied(ReviewReplied)
    case reported(ReviewReported)
    case hidden(ReviewHidden)
}

/// Stream names and the published/internal split of review events.
public enum ReviewEvents {
    /// `review-<tourId>-<userId>`: one traveller's review of one tour (lower-case UUIDs).
    public static func streamID(tour: UUID, user: UUID) -> String {
        "review-\(tour.uuidString.lowercased())-\(user.uuidString.lowercased())"
    }

    /// Event types of tour-management's log that must not leave the service (relay and embedded feed).
    public static let internalTypes: Set<String> = [ReviewReported.eventType]

    /// The `include` filter for `ServiceStorage.publishing(topic:include:)` and `addFeedRoutes(to:include:)`: everything
    /// but ``internalTypes``.
    public static func isPublished(_ envelope: EventEnvelope) -> Bool {
        !internalTypes.contains(envelope.eventType)
    }

    /// `ReviewHidden.reason` values.
    public static let hiddenByModeration = "moderation"
    public static let hiddenAuthorErased = "author-erased"
}

/// A review's state folded from its stream.
public struct ReviewState: Codable, Sendable, Hashable {
    public var reviewId: UUID?
    public var tourId: UUID?
    public var userId: UUID?
    public var guideId: UUID?
    public var rating = 0
    public var text: SealedPersonalData?
    public var postedAt: Date?
    public var editedAt: Date?
    public var reply: SealedPersonalData?
    public var repliedAt: Date?
    public var hidden = false
    public var hiddenReason: String?
    public var hiddenAt: Date?
    /// Everyone who reported it (one report per user).
    public var reporters: Set<UUID> = []

    public var exists: Bool { reviewId != nil }

    public init() {}
}

/// What callers ask of a review stream.
public enum ReviewCommand: Sendable {
    case post(reviewId: UUID, tourId: UUID, userId: UUID, guideId: UUID, rating: Int, text: SealedPersonalData?, at: Date)
    case edit(rating: Int, text: SealedPersonalData?, at: Date)
    case reply(reviewId: UUID, guideId: UUID, reply: SealedPersonalData, at: Date)
    case report(reviewId: UUID, reporterId: UUID, reason: ReviewReportReason, at: Date)
    /// `by` nil: the system (author erased).
    case hide(reviewId: UUID?, by: UUID?, reason: String, at: Date)
}

/// Why a review command was refused.
public enum ReviewError: Error, Sendable, Hashable, ProblemConvertible {
    case notFound
    case alreadyPosted
    case hidden
    case notTourGuide
    case alreadyReplied
    case alreadyReported
    case invalidRating
    /// The caller does not own the tour (or their access was refunded).
    case notEntitled
    /// The tour's own guide tried to review it.
    case ownTour
    /// Another change to the review won the append, also after the retries.
    case concurrentChange

    public var problem: Problem {
        switch self {
        case .notFound: Problem.notFound("no such review", code: "unknown-review")
        case .alreadyPosted:
            Problem.conflict("You have already reviewed this tour; edit it with PUT /v1/tours/{id}/reviews/me.", code: "review-exists")
        case .hidden: Problem.conflict("The review was hidden and can no longer change.", code: "review-hidden")
        case .notTourGuide: Problem.forbidden("Only the tour's guide may reply to its reviews.", code: "not-tour-owner")
        case .alreadyReplied: Problem.conflict("The guide has already replied to this review.", code: "already-replied")
        case .alreadyReported: Problem.conflict("You have already reported this review.", code: "already-reported")
        case .invalidRating:
            Problem.unprocessable(fieldErrors: [FieldError(field: "rating", code: "out-of-range", message: "must be between 1 and 5")])
        case .notEntitled: Problem.forbidden("Only travellers who own the tour may review it.", code: "not-entitled")
        case .ownTour: Problem.forbidden("Guides do not review their own tours.", code: "own-tour")
        case .concurrentChange: Problem.conflict("The review was changed at the same time; retry.", code: "version-conflict")
        }
    }
}

/// One traveller's review of one tour: posted once, edited by its author, answered once by the tour's guide, reported
/// once per user, hidden for good by a moderator or by the author's erasure.
public enum ReviewAggregate: Aggregate {
    public typealias State = ReviewState
    public typealias Event = ReviewEvent
    public typealias Command = ReviewCommand

    public static let ratings = 1...5
    public static var initialState: ReviewState { ReviewState() }

    public static let eventTypes = EventTypeMap<ReviewEvent>()
        .registering(ReviewPosted.self, ReviewEvent.posted)
        .registering(ReviewEdited.self, ReviewEvent.edited)
        .registering(ReviewReplied.self, ReviewEvent.replied)
        .registering(ReviewReported.self, ReviewEvent.reported)
        .registering(ReviewHidden.self, ReviewEvent.hidden)

    public static func payload(of event: ReviewEvent) -> any EventPayload {
        switch event {
        case .posted(let e): e
        case .edited(let e): e
        case .replied(let e): e
        case .reported(let e): e
        case .hidden(let e): e
        }
    }

    public static func apply(_ state: ReviewState, _ event: ReviewEvent) -> ReviewState {
        var s = state
        switch event {
        case .posted(let e):
            s.reviewId = e.reviewId
            s.tourId = e.tourId
            s.userId = e.userId
            s.guideId = e.guideId
            s.rating = e.rating
            s.text = e.text
            s.postedAt = e.postedAt
        case .edited(let e):
            s.rating = e.rating
            s.text = e.text
            s.editedAt = e.editedAt
        case .replied(let e):
            s.reply = e.reply
            s.repliedAt = e.repliedAt
        case .reported(let e):
            s.reporters.insert(e.reporterId)
        case .hidden(let e):
            s.hidden = true
            s.hiddenReason = e.reason
            s.hiddenAt = e.hiddenAt
        }
        return s
    }

    public static func decide(_ command: ReviewCommand, _ s: ReviewState) throws -> [ReviewEvent] {
        switch command {
        case let .post(reviewId, tourId, userId, guideId, rating, text, at):
            guard !s.exists else { throw ReviewError.alreadyPosted }
            guard ratings.contains(rating) else { throw ReviewError.invalidRating }
            return [.posted(ReviewPosted(reviewId: reviewId, tourId: tourId, userId: userId, guideId: guideId, rating: rating, text: text,
                                         postedAt: at))]
        case let .edit(rating, text, at):
            let (reviewId, tourId, userId, guideId) = try identity(s)
            guard !s.hidden else { throw ReviewError.hidden }
            guard ratings.contains(rating) else { throw ReviewError.invalidRating }
            return [.edited(ReviewEdited(reviewId: reviewId, tourId: tourId, userId: userId, guideId: guideId, previousRating: s.rating,
                                         rating: rating, text: text, editedAt: at))]
        case let .reply(reviewId, guideId, reply, at):
            let (id, tourId, _, tourGuide) = try identity(s, reviewId)
            guard guideId == tourGuide else { throw ReviewError.notTourGuide }
            guard !s.hidden else { throw ReviewError.hidden }
            guard s.reply == nil else { throw ReviewError.alreadyReplied }
            return [.replied(ReviewReplied(reviewId: id, tourId: tourId, guideId: guideId, reply: reply, repliedAt: at))]
        case let .report(reviewId, reporterId, reason, at):
            let (id, tourId, userId, _) = try identity(s, reviewId)
            guard !s.hidden else { throw ReviewError.hidden }
            guard !s.reporters.contains(reporterId) else { throw ReviewError.alreadyReported }
            return [.reported(ReviewReported(reviewId: id, tourId: tourId, userId: userId, reporterId: reporterId, reason: reason.rawValue,
                                             reportedAt: at))]
        case let .hide(reviewId, by, reason, at):
            let (id, tourId, userId, guideId) = try identity(s, reviewId)
            guard !s.hidden else { return [] }  // hiding is idempotent
            return [.hidden(ReviewHidden(reviewId: id, tourId: tourId, userId: userId, guideId: guideId, rating: s.rating, hiddenBy: by,
                                         reason: reason, hiddenAt: at))]
        }
    }

    /// The review's ids; 404 when there is none (or it is another review than `reviewId`).
    private static func identity(_ s: ReviewState, _ reviewId: UUID? = nil) throws -> (UUID, UUID, UUID, UUID) {
        guard let id = s.reviewId, let tour = s.tourId, let user = s.userId, let guide = s.guideId,
              reviewId == nil || reviewId == id
        else { throw ReviewError.notFound }
        return (id, tour, user, guide)
    }
}
