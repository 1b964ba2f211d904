import EventSourcing
import Foundation

/// How a draft began.
public enum PathDraftSource: String, Codable, Sendable, Hashable, CaseIterable {
    /// The cyclist built it from streets and drawn lines.
    case manual
    /// The rider sent a recorded ride from record-trip (its matched route and confirmed obstacles).
    case ride
}

/// A cyclist started a draft. Drafts are private: these events stay in path-review's log (not on `waypoint.paths`).
public struct PathDraftCreated: EventPayload, Hashable {
    public static let eventType = "PathDraftCreated"
    public var draftId: UUID
    public var authorId: UUID
    public var content: PathDraftContent
    public var createdAt: Date
    /// `nil` in drafts created before the source was recorded: all of them manual.
    public var source: PathDraftSource? = nil
}

/// The author changed the draft (the whole content is recorded: a draft is small, and its history reads plainly).
public struct PathDraftRevised: EventPayload, Hashable {
    public static let eventType = "PathDraftRevised"
    public var draftId: UUID
    public var content: PathDraftContent
    public var revisedAt: Date
}

/// The author deleted the draft.
public struct PathDraftDeleted: EventPayload, Hashable {
    public static let eventType = "PathDraftDeleted"
    public var draftId: UUID
    public var deletedAt: Date
}

/// The draft's author erased their account (`UserErased` from `waypoint.auth`): the draft no longer belongs to anyone.
/// A draft that was not on the network (`withdrawn`: new, sent back, in review, rejected) goes with them — out of the
/// queue and every list; an approved path stays on the network, authorless.
public struct PathDraftAuthorErased: EventPayload, Hashable {
    public static let eventType = "PathDraftAuthorErased"
    public var draftId: UUID
    public var withdrawn: Bool
    public var erasedAt: Date
}
