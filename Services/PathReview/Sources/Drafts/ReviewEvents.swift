import Contracts
import EventSourcing
import Foundation

/// The author published the draft: it enters the review queue. The box (degrees) is the route's, for the queue's
/// area filter.
public struct PathDraftSubmitted: EventPayload, Hashable {
    public static let eventType = "PathDraftSubmitted"
    public var draftId: UUID
    public var authorId: UUID
    /// The draft's name when published (what the queue lists).
    public var name: String
    public var submittedAt: Date
    public var south: Double, west: Double, north: Double, east: Double
}

/// A moderator took the item in the queue until `expiresAt` (then anyone may take it again).
public struct PathReviewClaimed: EventPayload, Hashable {
    public static let eventType = "PathReviewClaimed"
    public var draftId: UUID
    public var moderatorId: UUID
    public var claimedAt: Date
    public var expiresAt: Date
}

/// What a moderator decided on a published draft.
public enum ReviewOutcome: String, Codable, Sendable, Hashable, CaseIterable {
    /// The path joins the approved network.
    case approve
    /// Refused for good, with a reason.
    case reject
    /// Back to its author, with the changes asked for; the author may edit and publish again.
    case sendBack = "send-back"
}

/// A moderator decided on the item they held.
public struct PathReviewDecided: EventPayload, Hashable {
    public static let eventType = "PathReviewDecided"
    public var draftId: UUID
    public var moderatorId: UUID
    public var outcome: ReviewOutcome
    /// The reason (reject) or the changes asked for (send back); optional for approve.
    public var note: String?
    public var decidedAt: Date
    /// The draft's author and its name when decided: what the author's notification is made of (a pure function of
    /// this event, ``PathNotificationRules``); `nil` in decisions recorded before they were carried.
    public var authorId: UUID? = nil
    public var name: String? = nil
}

/// Where a draft stands.
public enum PathDraftStage: String, Codable, Sendable, Hashable {
    /// Its author edits it (new, or sent back).
    case draft
    /// Published: in the review queue.
    case inReview = "in-review"
    case approved
    case rejected
}

/// A moderator's hold on a queue item.
public struct ReviewClaim: Codable, Sendable, Hashable {
    public var moderatorId: UUID
    public var expiresAt: Date
}

/// Stored in the draft's stream as it is published: the contract's type is the payload.
extension PathApproved: EventPayload {}

/// Stored in the draft's stream with `PathDraftSubmitted` / `PathReviewDecided` / a withdrawing `PathDraftAuthorErased`:
/// the queue's anonymous twins, published for analytics (the contract's types are the payloads).
extension PathReviewOpened: EventPayload {}
extension PathReviewClosed: EventPayload {}

/// Stored in the path's stream with an approval (the draft's obstacles) and, later, with sightings: the contract's type
/// is the payload.
extension PathObstacleConfirmed: EventPayload {}
