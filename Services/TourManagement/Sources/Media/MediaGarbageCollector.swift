import Foundation
import Logging
import ServiceLifecycle

/// Runs ``MediaStore/collectGarbage(now:)`` every `interval` (first run right at start) until graceful shutdown; put
/// it in the application's `background` services. A failed round is logged and retried at the next one.
public struct MediaGarbageCollector: Service {
    public let store: MediaStore
    public let interval: Duration
    public let logger: Logger

    public init(store: MediaStore, interval: Duration = .seconds(3600), logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
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
