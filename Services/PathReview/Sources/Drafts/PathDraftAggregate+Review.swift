import Contracts
import Geo
import Foundation

/// The review rules: the author publishes a draft; a moderator claims it (a claim lasts a configured time, so nothing is
/// stuck behind a moderator who left); only the moderator holding a live claim decides; a decision (approve, reject)
/// is final; send back returns the draft to its author, who may edit and publish it again. Nobody reviews their own
/// draft. Two moderators cannot decide one item: the second finds it claimed, or decided — and the append at the
/// loaded version refuses a race between them.
extension PathDraftAggregate {
    static func decideReview(_ command: PathDraftCommand, _ s: PathDraftState) throws -> [PathDraftEvent] {
        switch command {
        case let .submit(author, at):
            guard s.isOwned(by: author), let id = s.draftId, let content = s.content else { throw PathDraftError.notFound }
            guard s.currentStage == .draft else { throw ReviewError.notPublishable(s.currentStage) }
            let lats = content.route.coordinates.map { $0[0] }, lngs = content.route.coordinates.map { $0[1] }
            return [.submitted(PathDraftSubmitted(draftId: id, authorId: author, name: content.name, submittedAt: at, south: lats.min() ?? 0, west: lngs.min() ?? 0,
                                                  north: lats.max() ?? 0, east: lngs.max() ?? 0)),
                    .reviewOpened(PathReviewOpened(draftId: id, openedAt: at))]
        case let .claim(moderator, at, duration):
            let id = try reviewable(s, by: moderator)
            if let claim = s.claim, claim.moderatorId != moderator, claim.expiresAt > at { throw ReviewError.claimedByAnother(until: claim.expiresAt) }
            return [.claimed(PathReviewClaimed(draftId: id, moderatorId: moderator, claimedAt: at, expiresAt: at.addingTimeInterval(duration)))]
        case let .decide(moderator, outcome, note, at):
            let id = try reviewable(s, by: moderator)
            guard let claim = s.claim, claim.moderatorId == moderator, claim.expiresAt > at else { throw ReviewError.claimRequired }
            let decided = PathDraftEvent.decided(PathReviewDecided(draftId: id, moderatorId: moderator, outcome: outcome, note: note, decidedAt: at,
                                                                   authorId: s.authorId, name: s.content?.name))
            let closed = PathDraftEvent.reviewClosed(PathReviewClosed(draftId: id, outcome: PathReviewOutcome(outcome), openedAt: s.submittedAt ?? at,
                                                                      closedAt: at))
            guard outcome == .approve, let content = s.content else { return [decided, closed] }
            return [decided, closed, .pathApproved(approval(id, content, at: at))]
                + content.obstacles.map { .obstacleConfirmed(confirmation(of: $0, on: id, content.route, at: at)) }
        case .create, .revise, .delete, .reportCondition, .overrideStatus, .retire, .reportObstacle, .confirmObstacle, .resolveObstacle,
             .fadeObstacle, .eraseAuthor, .rideSighting, .reportGone:
            return try decide(command, s)
        }
    }

    /// The published approval: the route and what the author said of the path, nobody's id.
    static func approval(_ id: UUID, _ content: PathDraftContent, at: Date) -> PathApproved {
        let details = PathApprovedDetails(segregatedFromCars: content.details.segregatedFromCars, pedestriansAllowed: content.details.pedestriansAllowed,
                                          surface: content.details.surface, lit: content.details.lit)
        return PathApproved(pathId: id, name: content.name, osmNodes: content.route.nodeIDs, geometry: content.route.coordinates.map { [$0[1], $0[0]] },
                            lengthM: content.route.lengthMetres, condition: content.condition.rawValue, details: details, approvedAt: at)
    }

    /// A draft obstacle as the approved path's first sighting of it: a fresh id, the starting confidence, and the
    /// route's segment it lies on (`[from, to]` OSM nodes; empty when the route's nodes and points do not pair up).
    static func confirmation(of obstacle: DraftObstacle, on pathId: UUID, _ route: DraftRoute, at: Date) -> PathObstacleConfirmed {
        PathObstacleConfirmed(obstacleId: UUID.v4(), pathId: pathId, osmNodes: segment(at: obstacle.offsetMetres, of: route),
                              latitude: obstacle.latitude, longitude: obstacle.longitude, type: obstacle.type.rawValue,
                              confidence: ObstacleConfidence.starting, sightings: 1, confirmedAt: at)
    }

    /// The directed node pair of the route's segment `offset` metres along it (the last one past its end).
    static func segment(at offset: Double, of route: DraftRoute) -> [Int64] {
        let nodes = route.nodeIDs, points = route.coordinates
        guard nodes.count >= 2, nodes.count == points.count, points.allSatisfy({ $0.count == 2 }) else { return [] }
        var along = 0.0
        for index in 0..<(nodes.count - 1) {
            if let a = try? Coordinate(latitude: points[index][0], longitude: points[index][1]),
               let b = try? Coordinate(latitude: points[index + 1][0], longitude: points[index + 1][1]) { along += a.distance(to: b) }
            if offset <= along { return [nodes[index], nodes[index + 1]] }
        }
        return [nodes[nodes.count - 2], nodes[nodes.count - 1]]
    }

    /// The draft's id when `moderator` may act on it in the queue.
    private static func reviewable(_ s: PathDraftState, by moderator: UUID) throws -> UUID {
        guard let id = s.draftId, !s.deleted else { throw ReviewError.notInReview }
        switch s.currentStage {
        case .approved, .rejected: throw ReviewError.alreadyDecided(s.currentStage)
        case .draft: throw ReviewError.notInReview
        case .inReview: break
        }
        guard s.authorId != moderator else { throw ReviewError.ownDraft }
        return id
    }

    static func applyReview(_ state: PathDraftState, _ event: PathDraftEvent) -> PathDraftState {
        var s = state
        switch event {
        case .submitted(let e): (s.stage, s.submittedAt, s.claim) = (.inReview, e.submittedAt, nil)
        case .claimed(let e): s.claim = ReviewClaim(moderatorId: e.moderatorId, expiresAt: e.expiresAt)
        case .decided(let e):
            s.decision = e
            s.claim = nil
            switch e.outcome {
            case .approve: s.stage = .approved
            case .reject: s.stage = .rejected
            case .sendBack: (s.stage, s.submittedAt) = (.draft, nil)
            }
        case .created, .revised, .deleted, .pathApproved, .obstacleConfirmed, .obstacleResolved, .conditionReported, .obstacleReported,
             .statusOverridden, .statusChanged, .retired, .authorErased, .obstacleSighted, .obstacleGoneReported, .reviewOpened, .reviewClosed: break
        }
        return s
    }
}

extension PathReviewOutcome {
    /// The published outcome of a moderator's decision.
    init(_ decision: ReviewOutcome) {
        switch decision {
        case .approve: self = .approved
        case .reject: self = .rejected
        case .sendBack: self = .sentBack
        }
    }
}
