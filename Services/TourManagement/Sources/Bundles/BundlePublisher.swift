import Contracts
import EventSourcing
import Foundation
import GRDB
import Logging
import Messaging
import PostgresNIO
import ServiceKit
import ServiceLifecycle

/// Which published revisions still need a bundle: table `bundle_queue (tour_id, revision)`, one row per tour holding its
/// latest published revision (a read model of `TourPublished`; rebuilding it only re-queues work the publisher skips).
struct BundleQueueFold {
    static let types = EventTypeMap<TourPublished>().registering(TourPublished.self) { $0 }
}

public struct SQLiteBundleQueueProjection: SQLiteProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { BundleQueueFold.types.eventTypes }

    public let name = "bundle_queue"
    public let tables = ["bundle_queue"]

    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: "CREATE TABLE \(t("bundle_queue")) (tour_id TEXT PRIMARY KEY, revision INTEGER NOT NULL)")
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let published = try BundleQueueFold.types.decode(event) else { return }
        try db.execute(sql: "INSERT OR REPLACE INTO \(t("bundle_queue")) (tour_id, revision) VALUES (?, ?)",
                       arguments: [published.tourId.uuidString.lowercased(), published.revision])
    }
}

public struct PostgresBundleQueueProjection: PostgresProjection {
    /// The event types it applies: a commit of others (a `TourViewed` per catalogue view) neither wakes nor feeds it.
    public var eventTypes: Set<String>? { BundleQueueFold.types.eventTypes }

    public let name = "bundle_queue"
    public let tables = ["bundle_queue"]

    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        try await connection.query("CREATE TABLE \(unescaped: t("bundle_queue")) (tour_id uuid PRIMARY KEY, revision int NOT NULL)",
                                   logger: connection.logger)
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let published = try BundleQueueFold.types.decode(event) else { return }
        try await connection.query("""
            INSERT INTO \(unescaped: t("bundle_queue")) (tour_id, revision) VALUES (\(published.tourId), \(Int32(published.revision)))
            ON CONFLICT (tour_id) DO UPDATE SET revision = excluded.revision
            """, logger: connection.logger)
    }
}

/// Builds the bundle of every newly published revision shortly after publication (version increments), so the first
/// download does not wait for it. Works through `bundle_queue` once the queue and discovery read models are live; a row
/// leaves the queue when its revision has a bundle, or when the tour is no longer listed — which is only concluded once
/// discovery has applied every event the queue had (the two read models follow the log independently, and a
/// publication the queue has seen but discovery not yet is not an unlisted tour: dropping its row then lost the bundle
/// under load).
public struct BundlePublisher: Service {
    let bundles: OfflineBundles
    let catalog: TourCatalog
    let queue: any BundleQueueStore
    let queueProjection: any ProjectionRunning
    let discovery: any ProjectionRunning
    let interval: Duration
    let logger: Logger

    public init(bundles: OfflineBundles, catalog: TourCatalog, queue: any BundleQueueStore, queueProjection: any ProjectionRunning,
                discovery: any ProjectionRunning, interval: Duration = .milliseconds(250), logger: Logger) {
        self.bundles = bundles
        self.catalog = catalog
        self.queue = queue
        self.queueProjection = queueProjection
        self.discovery = discovery
        self.interval = interval
        self.logger = logger
    }

    /// Drains the queue every `interval` (the first time as soon as the read models are live) until graceful shutdown.
    public func run() async throws {
        try await PeriodicWorker("bundle publishing", every: interval, after: [queueProjection, discovery], logger: logger) {
            _ = try await drain()
        }.run()
    }

    /// Works through the queue once; returns the bundles built or confirmed.
    @discardableResult
    public func drain() async throws -> Int {
        var done = 0
        let rows = try await queue.queued()
        // Read after the rows: every event behind them is at or below the queue's position now.
        let discoverySawQueue = discovery.status.position >= queueProjection.status.position
        for (tourId, revision) in rows {
            if let tour = try await catalog.tour(tourId) {
                guard tour.revision >= revision else { continue }  // discovery has not reached this revision yet
                try await bundles.ensure(tour)
                done += 1
            } else if !discoverySawQueue {
                continue  // not in discovery: unlisted, or discovery has not applied the publication yet
            }
            try await queue.dequeue(tourId, revision: revision)
        }
        return done
    }
}
