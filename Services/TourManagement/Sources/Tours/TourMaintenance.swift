import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle

/// Scheduled work of tour-management, until graceful shutdown: every `countsInterval` the published-tour counts of the
/// `guide_tours` read model and the completed purchases of the discovery read model go into the destination index (its
/// search ranking and `popular`), and every `expiryInterval` drafts untouched for 30 days are expired through the
/// aggregate (`TourDraftExpired`) — two ``PeriodicWorker``s, both starting as soon as `guide_tours` is live.
public struct TourMaintenance: Service {
    let authoring: TourAuthoring
    let reads: GuideTours
    let index: DestinationIndex
    /// Where completed purchases per destination come from (the discovery read model's popularity).
    let catalog: TourCatalog?
    /// The `guide_tours` projection: rounds start once it has caught up with the log.
    let projection: (any ProjectionRunning)?
    /// The read models the counts come from (`guide_tours`, discovery): the lowest of their positions, read before
    /// counting, is the position the index's counts include.
    let countedFrom: [any ProjectionRunning]
    let countsInterval: Duration
    let expiryInterval: Duration
    let logger: Logger

    public init(authoring: TourAuthoring, reads: GuideTours, index: DestinationIndex, catalog: TourCatalog? = nil,
                after projection: (any ProjectionRunning)? = nil, countedFrom: [any ProjectionRunning] = [], countsInterval: Duration = .seconds(30),
                expiryInterval: Duration = .seconds(3600), logger: Logger) {
        self.authoring = authoring
        self.catalog = catalog
        self.projection = projection
        self.countedFrom = countedFrom
        self.reads = reads
        self.index = index
        self.countsInterval = countsInterval
        self.expiryInterval = expiryInterval
        self.logger = logger
    }

    /// Runs the two schedules side by side until graceful shutdown.
    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            for worker in workers { group.addTask { try await worker.run() } }
        }
    }

    /// The counts every `countsInterval` and the draft expiry every `expiryInterval`, each starting as soon as the
    /// `guide_tours` read model is live: counting from a read model that is still being created or replayed would
    /// publish wrong numbers.
    var workers: [PeriodicWorker] {
        let after = projection.map { [$0] } ?? []
        return [
            PeriodicWorker("destination counts", every: countsInterval, after: after, logger: logger) { try await refreshCounts() },
            PeriodicWorker("draft expiry", every: expiryInterval, after: after, logger: logger) {
                let expired = try await expireDrafts()
                if expired > 0 { logger.notice("expired untouched drafts", metadata: ["drafts": "\(expired)"]) }
            },
        ]
    }

    /// Published tours per destination into the index.
    public func refreshCounts() async throws {
        let position = countedFrom.map(\.status.position).min()
        let counts = try await reads.publishedCountsByDestination()
        index.replacePublishedTours(counts)
        if let catalog { index.replaceCompletedPurchases(try await catalog.popularityByDestination()) }
        if let position { index.setCountsPosition(position) }
    }

    /// Expires drafts untouched for ``TourAggregate/draftLifetime``; returns how many.
    @discardableResult
    public func expireDrafts() async throws -> Int {
        let now = authoring.now()
        let cutoff = now.addingTimeInterval(-TourAggregate.draftLifetime)
        var expired = 0
        for draft in try await reads.drafts(untouchedSince: cutoff) {
            let (state, _) = try await authoring.execute(.expireDraft(olderThan: cutoff, at: now), on: draft.tourId, ifMatch: nil,
                                                         metadata: EventMetadata(actorID: "system:draft-expiry"))
            if state.status == .expired { expired += 1 }
        }
        return expired
    }
}
