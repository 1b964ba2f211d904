import EventSourcing
import Foundation
import Logging
import Messaging
import ServiceKit
import ServiceLifecycle

/// Runs ``MediaStore/collectGarbage(now:)`` every `interval` (first run right at start) until graceful shutdown; put
/// it in the application's `background` services. A failed round is logged and retried at the next one.
public struct MediaGarbageCollector: Service {
    public let store: MediaStore
    public let interval: Duration
    public let logger: Logger
    /// The `tour_media` projection: rounds start once it has caught up, so a half-replayed read model never releases
    /// media that tours still use.
    let projection: (any ProjectionRunning)?

    public init(store: MediaStore, after projection: (any ProjectionRunning)? = nil, interval: Duration = .seconds(3600), logger: Logger) {
        self.store = store
        self.projection = projection
        self.interval = interval
        self.logger = logger
    }

    /// Collects every `interval` (the first time as soon as the `tour_media` read model is live) until graceful shutdown.
    public func run() async throws {
        try await PeriodicWorker("media garbage collection", every: interval, after: projection.map { [$0] } ?? [], logger: logger) {
            try await collect()
        }.run()
    }

    /// One round: removes unreferenced media (``MediaStore/collectGarbage(now:)``) and logs what went.
    public func collect() async throws {
        let removed = try await store.collectGarbage(now: Date())
        if !removed.isEmpty {
            logger.info("unreferenced media removed", metadata: [
                "media": "\(removed.count)", "bytes": "\(removed.reduce(0) { $0 + $1.size })"])
        }
    }
}
