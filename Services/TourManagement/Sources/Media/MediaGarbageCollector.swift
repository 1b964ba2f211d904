import EventSourcing
import Foundation
import Logging
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

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await waitUntilLive(projection.map { [$0] } ?? [])
            while !Task.isCancelled {
                do {
                    let removed = try await store.collectGarbage(now: Date())
                    if !removed.isEmpty {
                        logger.info("unreferenced media removed", metadata: [
                            "media": "\(removed.count)", "bytes": "\(removed.reduce(0) { $0 + $1.size })"])
                    }
                } catch {
                    logger.error("media garbage collection failed", metadata: ["error": "\(String(reflecting: error))"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
