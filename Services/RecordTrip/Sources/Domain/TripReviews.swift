import Contracts
import EventSourcing
import Foundation
import RecordTripAnalysis
import RoadNetwork
import ServiceKit

/// What the rider decides about one candidate.
public enum CandidateAction: String, Codable, Sendable, Hashable, CaseIterable {
    case confirm, reject, move, retype
}

/// One decision of a review: `move` gives a new place, `retype` a new kind; any of them may correct the severity.
public struct CandidateDecision: Sendable, Hashable {
    public var candidateId: UUID
    public var action: CandidateAction
    public var kind: ObstacleKind?
    public var severity: Double?
    public var position: Coordinate2D?
}

/// An obstacle the rider adds that the detector missed.
public struct AddedObstacle: Sendable, Hashable {
    public var position: Coordinate2D
    public var kind: ObstacleKind
    public var severity: Double
}

/// A rider's review of a finished trip.
public struct TripReviewRequest: Sendable, Hashable {
    public var decisions: [CandidateDecision]
    public var added: [AddedObstacle]
    /// The rider's correction of the matched route, when they give one.
    public var route: [RoutePiece]?
    public var submitAsPathDraft: Bool
    public var condition: String?
}

/// An obstacle as the review confirmed it.
public struct ReviewedObstacle: Codable, Sendable, Hashable {
    public var obstacleId: UUID
    /// The candidate it came from (`nil`: added by the rider).
    public var candidateId: UUID?
    public var latitude: Double
    public var longitude: Double
    public var kind: ObstacleKind
    public var severity: Double
    public var osmNodes: [Int64]
}

/// The sealed outcome of a review.
public struct TripReviewOutcome: Codable, Sendable, Hashable {
    public var obstacles: [ReviewedObstacle]
    public var rejected: [UUID]
    /// The corrected route, when the rider gave one.
    public var route: [RoutePiece]?
}

/// Reviews of finished trips: every pending candidate decided once, missed ones added, the route maybe corrected;
/// then — and only then — the confirmed obstacles are published (`ObstacleConfirmed`, no rider id), and the route as a
/// path draft when the rider asks (`RideSubmittedAsPathDraft`).
public struct TripReviews: Sendable {
    let repository: TripCommands.Repository
    let seal: SubjectSeal
    let nodes: OSMNodeLocator
    let now: @Sendable () -> Date

    /// Reviews over the trip commands' log and keys, placing obstacles with `nodes`.
    public init(commands: TripCommands, nodes: OSMNodeLocator) {
        repository = commands.repository
        seal = commands.seal
        self.nodes = nodes
        now = commands.now
    }

    /// Records the review. 404 for someone else's trip, 409 `trip-not-finished` / `already-reviewed`, 422 when a
    /// candidate is undecided, unknown or decided twice, or a path draft is asked without a route.
    public func review(trip: UUID, rider: UUID, request: TripReviewRequest, metadata: EventMetadata) async throws -> TripState {
        do {
            return try await repository.execute(on: TripAggregate.streamID(trip), metadata: metadata) { loaded in
                try TripAggregate.checkReview(loaded.state, caller: rider)
                guard let sealed = loaded.state.analysis?.detail, let detail = try await seal.open(TripAnalysisDetail.self, sealed) else {
                    throw TripError.riderErased
                }
                let events = try await decide(request, detail: detail, trip: trip, rider: rider)
                return (events, events.reduce(loaded.state, TripAggregate.apply))
            }
        } catch let error as EventStoreError where error.isConcurrentChange {
            throw TripError.concurrentChange
        }
    }

    func decide(_ request: TripReviewRequest, detail: TripAnalysisDetail, trip: UUID, rider: UUID) async throws -> [TripEvent] {
        try Self.validate(request, against: detail)
        let route = request.route ?? detail.route
        let byId = Dictionary(detail.candidates.map { ($0.id, $0.candidate) }, uniquingKeysWith: { first, _ in first })
        var obstacles: [ReviewedObstacle] = []
        var rejected: [UUID] = []
        for decision in request.decisions {
            guard decision.action != .reject, let candidate = byId[decision.candidateId] else {
                rejected.append(decision.candidateId)
                continue
            }
            let position = decision.position ?? Coordinate2D(latitude: candidate.latitude, longitude: candidate.longitude)
            let kind = decision.kind ?? ObstacleKind(rawValue: candidate.kind.rawValue) ?? .bump
            obstacles.append(obstacle(candidateId: decision.candidateId, position, kind, decision.severity ?? candidate.severity, on: route))
        }
        for added in request.added {
            obstacles.append(obstacle(candidateId: nil, added.position, added.kind, added.severity, on: route))
        }
        let at = now()
        let outcome = TripReviewOutcome(obstacles: obstacles, rejected: rejected, route: request.route)
        var events: [TripEvent] = [.reviewed(TripReviewed(
            tripId: trip, riderId: rider, confirmed: obstacles.count - request.added.count, rejected: rejected.count, added: request.added.count,
            routeCorrected: request.route != nil, submittedAsPathDraft: request.submitAsPathDraft,
            outcome: try await seal.seal(outcome, for: rider), reviewedAt: at))]
        events += obstacles.map {
            .obstacle(ObstacleConfirmed(obstacleId: $0.obstacleId, osmNodes: $0.osmNodes, latitude: $0.latitude, longitude: $0.longitude,
                                        kind: $0.kind, severity: $0.severity, detected: $0.candidateId != nil, confirmedAt: at))
        }
        if request.submitAsPathDraft {
            events.append(.draft(RideSubmittedAsPathDraft(
                draftId: .v7(), riderId: rider, pieces: route.map(\.osmNodes),
                geometry: route.map { $0.geometry.map { [$0.longitude, $0.latitude] } }, lengthM: route.reduce(0) { $0 + $1.lengthM },
                condition: request.condition, submittedAt: at)))
        }
        return events
    }

    private func obstacle(candidateId: UUID?, _ position: Coordinate2D, _ kind: ObstacleKind, _ severity: Double,
                          on route: [RoutePiece]) -> ReviewedObstacle {
        ReviewedObstacle(obstacleId: .v7(), candidateId: candidateId, latitude: position.latitude, longitude: position.longitude, kind: kind,
                         severity: severity, osmNodes: nodes.nodePair(near: position.latitude, position.longitude, on: route))
    }

    /// 422 listing every problem: each candidate decided exactly once, no unknown ones, `move` with a position,
    /// `retype` with a kind, and a route (matched or corrected) for a path draft.
    static func validate(_ request: TripReviewRequest, against detail: TripAnalysisDetail) throws {
        var validator = Validator()
        let known = Set(detail.candidates.map(\.id))
        var seen: Set<UUID> = []
        for (index, decision) in request.decisions.enumerated() {
            let field = "decisions[\(index)]"
            validator.require(known.contains(decision.candidateId), field: "\(field).candidateId", code: "unknown-candidate",
                              message: "is not a candidate of this trip")
            validator.require(seen.insert(decision.candidateId).inserted, field: "\(field).candidateId", code: "duplicate",
                              message: "is decided twice")
            validator.require(decision.action != .move || decision.position != nil, field: "\(field).position", code: "required",
                              message: "is required to move a candidate")
            validator.require(decision.action != .retype || decision.kind != nil, field: "\(field).kind", code: "required",
                              message: "is required to retype a candidate")
        }
        for candidate in detail.candidates where !seen.contains(candidate.id) {
            validator.require(false, field: "decisions", code: "undecided-candidate",
                              message: "candidate \(candidate.id.uuidString.lowercased()) is not decided")
        }
        let route = request.route ?? detail.route
        validator.require(!request.submitAsPathDraft || !route.isEmpty, field: "route", code: "required",
                          message: "is required to submit a ride without a matched route as a path draft")
        try validator.check()
    }
}
