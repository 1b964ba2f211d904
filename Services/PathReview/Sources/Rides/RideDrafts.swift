import Contracts
import EventSourcing
import Foundation
import Logging
import ServiceKit

/// Creates the private draft a rider sends from a ride (`RideSubmittedAsPathDraft`, issue 20 point 3) under the
/// event's draft id, authored by the rider. Idempotent: a draft id that already has a stream (a redelivery, or a draft
/// made otherwise) is skipped. A ride the network cannot place is dropped with its reasons logged: a draft must have a
/// route, and the rider can still draw the path by hand.
public struct RideDrafts: Sendable {
    let drafts: PathDrafts
    let resolver: RideDraftResolver
    let logger: Logger

    /// What became of one ride.
    public enum Outcome: Sendable, Equatable {
        /// The draft was created.
        case created
        /// A stream under the draft id exists already: nothing was done.
        case alreadyExists
        /// The network cannot place the ride; the field errors (`field: code`) say why.
        case unplaceable([String])
    }

    /// The feature over the drafts and a resolver on the service's network.
    public init(drafts: PathDrafts, resolver: RideDraftResolver, logger: Logger) {
        self.drafts = drafts
        self.resolver = resolver
        self.logger = logger
    }

    /// Creates the ride's draft unless it exists or cannot be placed.
    @discardableResult
    public func accept(_ ride: RideSubmittedAsPathDraft) async throws -> Outcome {
        let stream = PathDraftAggregate.streamID(ride.draftId)
        guard try await drafts.repository.load(stream).version == 0 else { return .alreadyExists }
        let content: PathDraftContent
        do {
            content = try resolver.content(of: ride)
        } catch let problem as Problem {
            let reasons = problem.fieldErrors.map { "\($0.field): \($0.code)" }
            logger.notice("ride not placed on the network, no draft made",
                          metadata: ["draft": "\(ride.draftId)", "reasons": "\(reasons.joined(separator: "; "))"])
            return .unplaceable(reasons)
        }
        do {
            _ = try await drafts.create(ride.draftId, author: ride.riderId, content: content, source: .ride,
                                        metadata: EventMetadata(actorID: "system:rides"))
        } catch let problem as Problem where problem.code == "version-conflict" {
            return .alreadyExists
        }
        return .created
    }
}
