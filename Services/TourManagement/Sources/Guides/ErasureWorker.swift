import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle

/// Carries out `UserErased` in tour-management's own data, durably: the `waypoint.auth` consumer marks the account
/// erased in `guide_accounts` (in its transaction); this worker then erases what the person wrote (their key and their
/// reviews, ``ReviewCommands/eraseAuthor(_:)``, idempotent) and records it in `erasures_applied`. A crash between the two
/// only means the next round does it again.
public struct ErasureWorker: Service {
    let reviews: ReviewCommands
    let store: any ErasureStore
    let projections: [any ProjectionRunning]
    let interval: Duration
    let logger: Logger

    public init(reviews: ReviewCommands, store: any ErasureStore, after projections: [any ProjectionRunning], interval: Duration = .seconds(2),
                logger: Logger) {
        self.reviews = reviews
        self.store = store
        self.projections = projections
        self.interval = interval
        self.logger = logger
    }

    /// Applies pending erasures every `interval` (the first time as soon as the read models are live) until graceful
    /// shutdown.
    public func run() async throws {
        try await PeriodicWorker("erasure", every: interval, after: projections, logger: logger) {
            _ = try await applyPending()
        }.run()
    }

    /// Erases every account marked erased and not yet handled; returns how many.
    @discardableResult
    public func applyPending() async throws -> Int {
        let pending = try await store.pendingUsers()
        for user in pending {
            try await reviews.eraseAuthor(user)
            try await store.markApplied(user)
            logger.notice("erased account's content removed", metadata: ["user": "\(user)"])
        }
        return pending.count
    }
}
