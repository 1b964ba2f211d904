import Foundation
import Logging
import ServiceKit
import ServiceLifecycle

/// Turns the rides the `waypoint.trips` consumer stored into drafts (``RideDrafts/accept(_:)``), durably: each ride is
/// marked done only after its draft exists (or it was skipped or dropped), so a crash midway only means the next round
/// does it again — and `accept` is idempotent.
public struct RideDraftWorker: Service {
    let rides: RideDrafts
    let store: any RideSubmissionStore
    let interval: Duration
    let logger: Logger

    /// The worker over the ride drafts and the rides still to handle.
    public init(rides: RideDrafts, store: any RideSubmissionStore, interval: Duration = .seconds(2), logger: Logger) {
        self.rides = rides
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// Runs rounds until graceful shutdown.
    public func run() async throws {
        try await PeriodicWorker("ride drafts", every: interval, logger: logger) {
            _ = try await applyPending()
        }.run()
    }

    /// Handles every stored ride not yet handled; returns how many.
    @discardableResult
    public func applyPending() async throws -> Int {
        let pending = try await store.pending()
        for ride in pending {
            try await rides.accept(ride)
            try await store.markDone(ride.draftId)
        }
        return pending.count
    }
}
