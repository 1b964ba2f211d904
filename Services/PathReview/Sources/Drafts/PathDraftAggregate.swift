import Contracts
import EventSourcing
import Foundation

/// A draft folded from `path-draft-<id>`: who wrote it, what it says now, whether it is gone, and where it stands in
/// review.
public struct PathDraftState: Codable, Sendable, Hashable {
    public var draftId: UUID?
    public var authorId: UUID?
    public var content: PathDraftContent?
    public var createdAt: Date?
    public var updatedAt: Date?
    /// How it began (`nil`: manual).
    public var source: PathDraftSource?
    public var deleted = false
    /// `nil` reads as ``PathDraftStage/draft``.
    public var stage: PathDraftStage?
    public var submittedAt: Date?
    /// The moderator's hold while in review (it may have expired).
    public var claim: ReviewClaim?
    /// The last decision (a sent-back draft keeps it, so its author sees the changes asked for).
    public var decision: PathReviewDecided?
    /// The path's life after approval (condition, override, reports, open obstacles, retirement); `nil` until approved.
    public var upkeep: PathUpkeepState?

    /// Where the draft stands.
    public var currentStage: PathDraftStage { stage ?? .draft }

    public init() {}

    /// Whether the draft exists and is the caller's (anything else is "not found" to them).
    public func isOwned(by author: UUID) -> Bool {
        draftId != nil && !deleted && authorId == author
    }
}

/// A draft's events.
public enum PathDraftEvent: Sendable, Hashable {
    case created(PathDraftCreated)
    case revised(PathDraftRevised)
    case deleted(PathDraftDeleted)
    case submitted(PathDraftSubmitted)
    case claimed(PathReviewClaimed)
    case decided(PathReviewDecided)
    /// Published on `waypoint.paths` with an approval (``PathReviewEvents``).
    case pathApproved(PathApproved)
    /// Published on `waypoint.paths`: an obstacle of the approved path (the draft's own at approval, ``PathDraftAggregate/decideReview(_:_:)``).
    case obstacleConfirmed(PathObstacleConfirmed)
    /// Published: an obstacle of the approved path is gone.
    case obstacleResolved(PathObstacleResolved)
    /// A cyclist's condition report (in the log only).
    case conditionReported(PathConditionReported)
    /// A cyclist's obstacle report (in the log only; its `obstacleConfirmed` follows).
    case obstacleReported(PathObstacleReported)
    /// A moderator's override set or lifted (in the log only).
    case statusOverridden(PathStatusOverridden)
    /// Published: the path's condition changed.
    case statusChanged(PathStatusChanged)
    /// Published: the path left the network.
    case retired(PathRetired)
    /// The author's account was erased (in the log only).
    case authorErased(PathDraftAuthorErased)
    /// A ride saw an obstacle on the path (in the log only; its `obstacleConfirmed` follows).
    case obstacleSighted(PathObstacleSighted)
    /// Published with `submitted`: the draft entered the review queue (for analytics; no state of its own).
    case reviewOpened(PathReviewOpened)
    /// Published with `decided` (and with `authorErased` of a draft in review): it left the queue.
    case reviewClosed(PathReviewClosed)
    /// A cyclist reported an open obstacle gone (in the log only; the deciding report's `obstacleResolved` follows).
    case obstacleGoneReported(PathObstacleGoneReported)
}

/// What an author asks of a draft. The content arrives validated and resolved (pieces joined into a route on the
/// network, obstacles placed on it): the aggregate decides who may do what, not geometry.
public enum PathDraftCommand: Sendable {
    case create(draftId: UUID, author: UUID, content: PathDraftContent, at: Date, source: PathDraftSource = .manual)
    case revise(author: UUID, content: PathDraftContent, at: Date)
    case delete(author: UUID, at: Date)
    /// The author publishes the draft into the review queue.
    case submit(author: UUID, at: Date)
    /// A moderator takes the item for `duration`.
    case claim(moderator: UUID, at: Date, duration: TimeInterval)
    /// The moderator holding the item decides.
    case decide(moderator: UUID, outcome: ReviewOutcome, note: String?, at: Date)
    /// A signed-in cyclist reports an approved path's condition.
    case reportCondition(reporter: UUID, condition: PathCondition, at: Date)
    /// A moderator overrides the published condition (`nil` lifts the override).
    case overrideStatus(moderator: UUID, condition: PathCondition?, at: Date)
    /// A moderator retires the approved path.
    case retire(moderator: UUID, at: Date)
    /// A signed-in cyclist reports an obstacle, placed on the path (``PathDraftPlanner``, ≤ 30 m).
    case reportObstacle(reporter: UUID, obstacle: DraftObstacle, at: Date)
    /// A signed-in cyclist saw an open obstacle again.
    case confirmObstacle(user: UUID, obstacleId: UUID, at: Date)
    /// A moderator resolves an open obstacle (it is gone).
    case resolveObstacle(moderator: UUID, obstacleId: UUID, at: Date)
    /// The fading sweep: the obstacle fades when it is still open and was last confirmed before `cutoff`.
    case fadeObstacle(obstacleId: UUID, cutoff: Date, at: Date)
    /// A ride's obstacle (record-trip's `ObstacleConfirmed`, id `sightingId`) lies on this path.
    case rideSighting(sightingId: UUID, type: PathObstacleType, latitude: Double, longitude: Double, at: Date)
    /// A signed-in cyclist reports an open obstacle gone.
    case reportGone(user: UUID, obstacleId: UUID, at: Date)
    /// `author`'s account was erased (``AuthorErasureWorker``); nothing when the draft is not theirs (any more).
    case eraseAuthor(author: UUID, at: Date)
}

/// One stream per draft. Only its author sees or changes it, and only as a draft (new or sent back); a deleted draft is
/// gone for good (its id is not reused); a revision with the same content changes nothing. Review rules:
/// ``PathDraftAggregate/decideReview(_:_:)``.
public enum PathDraftAggregate: Aggregate {
    public typealias State = PathDraftState
    public typealias Event = PathDraftEvent
    public typealias Command = PathDraftCommand

    public static var initialState: PathDraftState { PathDraftState() }

    public static let eventTypes = EventTypeMap<PathDraftEvent>()
        .registering(PathDraftCreated.self, PathDraftEvent.created)
        .registering(PathDraftRevised.self, PathDraftEvent.revised)
        .registering(PathDraftDeleted.self, PathDraftEvent.deleted)
        .registering(PathDraftSubmitted.self, PathDraftEvent.submitted)
        .registering(PathReviewClaimed.self, PathDraftEvent.claimed)
        .registering(PathReviewDecided.self, PathDraftEvent.decided)
        .registering(PathApproved.self, PathDraftEvent.pathApproved)
        .registering(PathObstacleConfirmed.self, PathDraftEvent.obstacleConfirmed)
        .registering(PathObstacleResolved.self, PathDraftEvent.obstacleResolved)
        .registering(PathConditionReported.self, PathDraftEvent.conditionReported)
        .registering(PathObstacleReported.self, PathDraftEvent.obstacleReported)
        .registering(PathStatusOverridden.self, PathDraftEvent.statusOverridden)
        .registering(PathStatusChanged.self, PathDraftEvent.statusChanged)
        .registering(PathRetired.self, PathDraftEvent.retired)
        .registering(PathDraftAuthorErased.self, PathDraftEvent.authorErased)
        .registering(PathObstacleSighted.self, PathDraftEvent.obstacleSighted)
        .registering(PathObstacleGoneReported.self, PathDraftEvent.obstacleGoneReported)
        .registering(PathReviewOpened.self, PathDraftEvent.reviewOpened)
        .registering(PathReviewClosed.self, PathDraftEvent.reviewClosed)

    /// The stream of draft `id`.
    public static func streamID(_ id: UUID) -> String { "path-draft-\(id.uuidString.lowercased())" }

    public static func payload(of event: PathDraftEvent) -> any EventPayload {
        switch event {
        case .created(let e): e
        case .revised(let e): e
        case .deleted(let e): e
        case .submitted(let e): e
        case .claimed(let e): e
        case .decided(let e): e
        case .pathApproved(let e): e
        case .obstacleConfirmed(let e): e
        case .obstacleResolved(let e): e
        case .conditionReported(let e): e
        case .obstacleReported(let e): e
        case .statusOverridden(let e): e
        case .statusChanged(let e): e
        case .retired(let e): e
        case .authorErased(let e): e
        case .obstacleSighted(let e): e
        case .obstacleGoneReported(let e): e
        case .reviewOpened(let e): e
        case .reviewClosed(let e): e
        }
    }

    public static func apply(_ state: PathDraftState, _ event: PathDraftEvent) -> PathDraftState {
        var s = state
        switch event {
        case .created(let e):
            (s.draftId, s.authorId, s.content, s.createdAt, s.updatedAt) = (e.draftId, e.authorId, e.content, e.createdAt, e.createdAt)
            s.source = e.source
        case .revised(let e):
            (s.content, s.updatedAt) = (e.content, e.revisedAt)
        case .deleted(let e):
            (s.deleted, s.content, s.updatedAt) = (true, nil, e.deletedAt)
        case .submitted, .claimed, .decided, .pathApproved, .obstacleConfirmed:
            s = applyUpkeep(applyReview(s, event), event)
        case .obstacleResolved, .conditionReported, .obstacleReported, .statusOverridden, .statusChanged, .retired, .obstacleSighted,
             .obstacleGoneReported:
            s = applyUpkeep(s, event)
        case .authorErased(let e):
            s.authorId = nil
            if e.withdrawn { (s.deleted, s.content, s.claim, s.updatedAt) = (true, nil, nil, e.erasedAt) }
        case .reviewOpened, .reviewClosed:
            break  // the published twins of `submitted`, `decided` and `authorErased`, which carry the state
        }
        return s
    }

    public static func decide(_ command: PathDraftCommand, _ s: PathDraftState) throws -> [PathDraftEvent] {
        switch command {
        case let .create(draftId, author, content, at, source):
            guard s.draftId == nil else { throw PathDraftError.alreadyExists }
            return [.created(PathDraftCreated(draftId: draftId, authorId: author, content: content, createdAt: at, source: source))]
        case let .revise(author, content, at):
            guard s.isOwned(by: author), let id = s.draftId else { throw PathDraftError.notFound }
            guard s.currentStage == .draft else { throw ReviewError.notEditable(s.currentStage) }
            guard s.content != content else { return [] }
            return [.revised(PathDraftRevised(draftId: id, content: content, revisedAt: at))]
        case let .delete(author, at):
            guard s.isOwned(by: author), let id = s.draftId else { throw PathDraftError.notFound }
            guard s.currentStage == .draft else { throw ReviewError.notEditable(s.currentStage) }
            return [.deleted(PathDraftDeleted(draftId: id, deletedAt: at))]
        case .submit, .claim, .decide:
            return try decideReview(command, s)
        case .reportCondition, .overrideStatus, .retire, .reportObstacle, .confirmObstacle, .resolveObstacle, .fadeObstacle, .rideSighting,
             .reportGone:
            return try decideUpkeep(command, s)
        case let .eraseAuthor(author, at):
            guard let id = s.draftId, s.authorId == author else { return [] }
            let erased = PathDraftEvent.authorErased(PathDraftAuthorErased(draftId: id, withdrawn: s.deleted || s.currentStage != .approved,
                                                                           erasedAt: at))
            // A draft waiting in the queue leaves it without a decision.
            guard !s.deleted, s.currentStage == .inReview else { return [erased] }
            return [erased, .reviewClosed(PathReviewClosed(draftId: id, outcome: .withdrawn, openedAt: s.submittedAt ?? at, closedAt: at))]
        }
    }
}
