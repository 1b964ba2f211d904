import Contracts
import Foundation
@testable import PathReview
import Testing

@Suite("path-review: review rules (pure decide and apply)")
struct ReviewAggregateTests {
    static let (author, first, second) = (UUID(), UUID(), UUID())
    static let t0 = Date(timeIntervalSince1970: 1_790_000_000)
    static let claim: TimeInterval = 1_800

    /// A draft published at t0.
    static func published() throws -> PathDraftState {
        try PathDraftAggregateTests.fold([
            .create(draftId: PathDraftAggregateTests.draft, author: author, content: PathDraftAggregateTests.content(), at: t0),
            .submit(author: author, at: t0),
        ]).0
    }

    static func run(_ command: PathDraftCommand, _ state: PathDraftState) throws -> PathDraftState {
        try PathDraftAggregate.decide(command, state).reduce(state, PathDraftAggregate.apply)
    }

    @Test("publishing puts the draft in review with its route's box; it cannot be edited, deleted or published again there")
    func publish() throws {
        let state = try Self.published()
        #expect(state.currentStage == .inReview && state.submittedAt == Self.t0)
        let events = try PathDraftAggregate.decide(.submit(author: Self.author, at: Self.t0),
                                                   try PathDraftAggregateTests.fold([.create(draftId: PathDraftAggregateTests.draft, author: Self.author,
                                                                                             content: PathDraftAggregateTests.content(), at: Self.t0)]).0)
        guard case .submitted(let e) = try #require(events.first) else { Issue.record("not submitted"); return }
        #expect(e.south == 48.41 && e.north == 48.41 && e.west == 15.60 && e.east == 15.61 && e.name == "Donau cycleway")
        #expect(throws: ReviewError.notEditable(.inReview)) { try Self.run(.revise(author: Self.author, content: PathDraftAggregateTests.content("x"), at: Self.t0), state) }
        #expect(throws: ReviewError.notEditable(.inReview)) { try Self.run(.delete(author: Self.author, at: Self.t0), state) }
        #expect(throws: ReviewError.notPublishable(.inReview)) { try Self.run(.submit(author: Self.author, at: Self.t0), state) }
        #expect(throws: PathDraftError.notFound) { try Self.run(.submit(author: Self.first, at: Self.t0), state) }
    }

    @Test("two moderators cannot hold or decide one item; a claim expires; a decision is final; nobody reviews their own draft")
    func claimsAndDecisions() throws {
        let held = try Self.run(.claim(moderator: Self.first, at: Self.t0, duration: Self.claim), try Self.published())
        #expect(throws: ReviewError.claimedByAnother(until: Self.t0.addingTimeInterval(Self.claim))) {
            try Self.run(.claim(moderator: Self.second, at: Self.t0.addingTimeInterval(60), duration: Self.claim), held)
        }
        #expect(throws: ReviewError.claimRequired) {
            try Self.run(.decide(moderator: Self.second, outcome: .approve, note: nil, at: Self.t0.addingTimeInterval(60)), held)
        }
        #expect(throws: ReviewError.ownDraft) { try Self.run(.claim(moderator: Self.author, at: Self.t0, duration: Self.claim), held) }
        // After the claim expired, the first moderator can no longer decide and the second may take it.
        let later = Self.t0.addingTimeInterval(Self.claim + 1)
        #expect(throws: ReviewError.claimRequired) { try Self.run(.decide(moderator: Self.first, outcome: .approve, note: nil, at: later), held) }
        let taken = try Self.run(.claim(moderator: Self.second, at: later, duration: Self.claim), held)
        let approved = try Self.run(.decide(moderator: Self.second, outcome: .approve, note: nil, at: later), taken)
        #expect(approved.currentStage == .approved && approved.decision?.moderatorId == Self.second && approved.claim == nil)
        #expect(throws: ReviewError.alreadyDecided(.approved)) {
            try Self.run(.decide(moderator: Self.second, outcome: .reject, note: "no", at: later), approved)
        }
        #expect(throws: ReviewError.alreadyDecided(.approved)) { try Self.run(.claim(moderator: Self.first, at: later, duration: Self.claim), approved) }
    }

    @Test("sent back, the draft is its author's to edit and publish again, with the changes asked for; rejected is final")
    func sendBackAndReject() throws {
        let held = try Self.run(.claim(moderator: Self.first, at: Self.t0, duration: Self.claim), try Self.published())
        let back = try Self.run(.decide(moderator: Self.first, outcome: .sendBack, note: "name the bridge", at: Self.t0), held)
        #expect(back.currentStage == .draft && back.decision?.note == "name the bridge" && back.submittedAt == nil)
        let edited = try Self.run(.revise(author: Self.author, content: PathDraftAggregateTests.content("Bridge path"), at: Self.t0), back)
        let again = try Self.run(.submit(author: Self.author, at: Self.t0.addingTimeInterval(5)), edited)
        #expect(again.currentStage == .inReview)
        let rejected = try Self.run(.decide(moderator: Self.first, outcome: .reject, note: "duplicate", at: Self.t0),
                                    try Self.run(.claim(moderator: Self.first, at: Self.t0, duration: Self.claim), again))
        #expect(rejected.currentStage == .rejected)
        #expect(throws: ReviewError.notPublishable(.rejected)) { try Self.run(.submit(author: Self.author, at: Self.t0), rejected) }
        #expect(throws: ReviewError.notEditable(.rejected)) { try Self.run(.delete(author: Self.author, at: Self.t0), rejected) }
    }

    @Test("an approval publishes the draft's obstacles as first sightings on the path's segments, naming nobody")
    func approvalCarriesObstacles() throws {
        let held = try Self.run(.claim(moderator: Self.first, at: Self.t0, duration: Self.claim), try Self.published())
        let events = try PathDraftAggregate.decide(.decide(moderator: Self.first, outcome: .approve, note: nil, at: Self.t0), held)
        let confirmed = events.compactMap { event -> PathObstacleConfirmed? in if case .obstacleConfirmed(let e) = event { e } else { nil } }
        #expect(events.count == 4 && confirmed.count == 1, "decided, its PathReviewClosed, PathApproved, the obstacle")
        let obstacle = try #require(confirmed.first)
        #expect(obstacle.pathId == PathDraftAggregateTests.draft && obstacle.osmNodes == [1, 2] && obstacle.type == "pothole")
        #expect(obstacle.sightings == 1 && obstacle.confidence == ObstacleConfidence.starting && obstacle.confirmedAt == Self.t0)
        #expect(PathReviewEvents.publishedTypes.contains(PathObstacleConfirmed.eventType))
        // Applying them changes nothing of the review's state.
        #expect(events.reduce(held, PathDraftAggregate.apply).currentStage == .approved)
    }

    @Test("an obstacle's segment is the route's pair of nodes around its offset (measured independently: a 3-node line)")
    func obstacleSegment() throws {
        // Three points 0.01° of longitude apart at 48.41° N: each segment ~739.6 m (cos 48.41° × 111.195 km × 0.01).
        let route = DraftRoute(nodeIDs: [10, 20, 30], coordinates: [[48.41, 15.60], [48.41, 15.61], [48.41, 15.62]], lengthMetres: 1_479)
        #expect(PathDraftAggregate.segment(at: 0, of: route) == [10, 20])
        #expect(PathDraftAggregate.segment(at: 700, of: route) == [10, 20])
        #expect(PathDraftAggregate.segment(at: 780, of: route) == [20, 30])
        #expect(PathDraftAggregate.segment(at: 5_000, of: route) == [20, 30])
        #expect(PathDraftAggregate.segment(at: 10, of: DraftRoute(nodeIDs: [1], coordinates: [[48, 15]], lengthMetres: 0)) == [])
    }

    @Test("the review queue's anonymous twins: PathReviewOpened with each publication, PathReviewClosed with each decision (opened and closed times) and for a draft in review whose author is erased")
    func queueTwins() throws {
        func twins(_ events: [PathDraftEvent]) -> [String] {
            events.compactMap { event in
                switch event {
                case .reviewOpened(let e): "opened \(e.openedAt.timeIntervalSince(Self.t0))"
                case .reviewClosed(let e): "closed \(e.outcome.rawValue) \(e.openedAt.timeIntervalSince(Self.t0)) \(e.closedAt.timeIntervalSince(Self.t0))"
                default: nil
                }
            }
        }
        let draft = try PathDraftAggregateTests.fold([
            .create(draftId: PathDraftAggregateTests.draft, author: Self.author, content: PathDraftAggregateTests.content(), at: Self.t0),
        ]).0
        #expect(twins(try PathDraftAggregate.decide(.submit(author: Self.author, at: Self.t0), draft)) == ["opened 0.0"])
        let held = try Self.run(.claim(moderator: Self.first, at: Self.t0.addingTimeInterval(60), duration: Self.claim), try Self.published())
        let back = try PathDraftAggregate.decide(.decide(moderator: Self.first, outcome: .sendBack, note: "name it", at: Self.t0.addingTimeInterval(600)), held)
        #expect(twins(back) == ["closed sent-back 0.0 600.0"])
        let again = try Self.run(.submit(author: Self.author, at: Self.t0.addingTimeInterval(900)), back.reduce(held, PathDraftAggregate.apply))
        let heldAgain = try Self.run(.claim(moderator: Self.first, at: Self.t0.addingTimeInterval(960), duration: Self.claim), again)
        #expect(twins(try PathDraftAggregate.decide(.decide(moderator: Self.first, outcome: .reject, note: "no", at: Self.t0.addingTimeInterval(1_200)),
                                                    heldAgain)) == ["closed rejected 900.0 1200.0"], "the time since the latest publication")
        #expect(twins(try PathDraftAggregate.decide(.eraseAuthor(author: Self.author, at: Self.t0.addingTimeInterval(30)), held))
                == ["closed withdrawn 0.0 30.0"], "erased while waiting: withdrawn")
        #expect(twins(try PathDraftAggregate.decide(.eraseAuthor(author: Self.author, at: Self.t0), draft)).isEmpty, "not in review: no twin")
        #expect(PathReviewEvents.publishedTypes.isSuperset(of: [PathReviewOpened.eventType, PathReviewClosed.eventType]))
        // The twins change no state: the state after them equals the state without them.
        let plain = back.filter { if case .reviewClosed = $0 { false } else { true } }
        #expect(back.reduce(held, PathDraftAggregate.apply) == plain.reduce(held, PathDraftAggregate.apply))
    }
}
