import Foundation
import ServiceKit

/// Why a publish or review command was refused; each case renders itself as problem+json with a stable code.
public enum ReviewError: Error, Sendable, Hashable, ProblemConvertible {
    /// The draft is published or decided: its author cannot change it now.
    case notEditable(PathDraftStage)
    /// Published already, or decided.
    case notPublishable(PathDraftStage)
    /// Not in the review queue (never published, sent back, or decided).
    case notInReview
    /// Decided already: a decision is final.
    case alreadyDecided(PathDraftStage)
    /// Another moderator holds the item until `until`.
    case claimedByAnother(until: Date)
    /// Deciding without holding a live claim.
    case claimRequired
    /// A moderator reviewing their own draft.
    case ownDraft

    public var problem: Problem {
        switch self {
        case .notEditable(let stage):
            .conflict("The draft is \(stage.rawValue); it can be edited only as a draft (before publishing, or when sent back).", code: "draft-not-editable")
        case .notPublishable(let stage): .conflict("The draft is \(stage.rawValue); only a draft can be published.", code: "draft-not-publishable")
        case .notInReview: .notFound("no such item in the review queue", code: "unknown-review-item")
        case .alreadyDecided(let stage): .conflict("The path was \(stage.rawValue) already; a decision is final.", code: "already-decided")
        case .claimedByAnother(let until):
            .conflict("Another moderator holds this item until \(ISO8601DateFormatter().string(from: until)).", code: "claimed-by-another")
        case .claimRequired: .conflict("Claim the item first (your claim is missing or expired).", code: "claim-required")
        case .ownDraft: .forbidden("Moderators do not review their own drafts.", code: "own-draft")
        }
    }
}
