import Foundation
import Logging
import RoadNetwork
import ServiceKit
import ServiceLifecycle
import Synchronization

/// The community layer as this instance routes with it: the ``CommunityIndex`` of what the `waypoint.paths` consumer
/// stored and the router's weights resolved under its overlay, swapped in one assignment when the consumer's change
/// counter moved (``refresh()``, every `WAYPOINT_NAVIGATION_OVERLAY_REFRESH_MS`). Every instance polls the same
/// tables, so an approval reaches all of them without a restart; the graph is never rebuilt.
public final class CommunityOverlay: Service, Sendable {
    /// What a request routes with: taken once per request, so one request never mixes two layers.
    public struct Snapshot: Sendable {
        /// The consumer's change counter this snapshot was built at (0: nothing yet).
        public let version: Int64
        public let index: CommunityIndex
        public let weights: RoadWeights
    }

    private let store: any CommunityStore
    private let router: RoadRouter
    private let interval: Duration
    private let logger: Logger
    private let state: Mutex<(snapshot: Snapshot, loaded: Bool)>

    /// The layer over `store` for `router`'s graph; the profile's weights until the first ``refresh()``.
    public init(store: any CommunityStore, router: RoadRouter, interval: Duration, logger: Logger) {
        self.store = store
        self.router = router
        self.interval = interval
        self.logger = logger
        state = Mutex((Snapshot(version: 0, index: .empty, weights: router.baseWeights), false))
    }

    /// The layer now.
    public var current: Snapshot { state.withLock { $0.snapshot } }

    /// Whether it was loaded at least once (readiness).
    public var isLoaded: Bool { state.withLock { $0.loaded } }

    /// Reads the change counter and, when it moved, the whole layer; resolves and swaps it. Returns whether it
    /// swapped. A layer the overlay rules refuse (cannot happen with the documented constants) keeps the old one.
    @discardableResult
    public func refresh() async throws -> Bool {
        let version = try await store.version()
        let held = current.version
        guard version != held || !isLoaded else { return false }
        if version == held {
            state.withLock { $0.loaded = true }
            return false
        }
        let started = ContinuousClock.now
        let records = try await store.records()
        let index = try CommunityIndex(records)
        let snapshot = Snapshot(version: version, index: index, weights: router.weights(for: index.overlay))
        state.withLock { $0 = (snapshot, true) }
        logger.info("community layer swapped", metadata: [
            "version": "\(version)", "paths": "\(index.counts.paths)", "obstacles": "\(index.counts.obstacles)",
            "streets": "\(index.counts.streets)", "ms": "\((ContinuousClock.now - started).milliseconds)",
        ])
        return true
    }

    /// Refreshes every interval until graceful shutdown (a failed round is logged and retried).
    public func run() async throws {
        try await PeriodicWorker("community layer", every: interval, logger: logger) { [self] in try await refresh() }.run()
    }
}

extension Readiness {
    /// Not ready until the community layer was loaded once (routes would ignore approved paths).
    func register(_ overlay: CommunityOverlay) {
        register("community-layer") { overlay.isLoaded ? .ready : .notReady("community layer not loaded yet") }
    }
}

extension Duration {
    /// Whole and fractional milliseconds.
    var milliseconds: Double { Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15 }
}
