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
    public let name = "bundle_queue"
    public let tables = ["bundle_queue"]

    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(t("bundle_queue")) (tour_id uuid PRIMARY KEY, revision int NOT NULL)"),
                                   logger: connection.logger)
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let published = try BundleQueueFold.types.decode(event) else { return }
        var query = PostgresQuery(unsafeSQL: """
            INSERT INTO \(t("bundle_queue")) (tour_id, revision) VALUES ($1, $2) ON CONFLICT (tour_id) DO UPDATE SET revision = excluded.revision
            """)
        query.binds.append(published.tourId)
        query.binds.append(Int32(published.revision))
        try await connection.query(query, logger: connection.logger)
    }
}

/// Builds the bundle of every newly published revision shortly after publication (version increments), so the first
/// download does not wait for it. Works through `bundle_queue` once the discovery and queue read models are live; a row
/// leaves the queue when its revision has a bundle (or the tour is no longer listed).
public struct BundlePublisher: Service {
    let bundles: OfflineBundles
    let catalog: TourCatalog
    let storage: (sqlite: SQLiteServiceDatabase?, postgres: PostgresServiceDatabase?)
    let projections: [any ProjectionRunning]
    let interval: Duration
    let logger: Logger

    public init(bundles: OfflineBundles, catalog: TourCatalog, sqlite: SQLiteServiceDatabase?, postgres: PostgresServiceDatabase?,
                after projections: [any ProjectionRunning], interval: Duration = .milliseconds(250), logger: Logger) {
        self.bundles = bundles
        self.catalog = catalog
        storage = (sqlite, postgres)
        self.projections = projections
        self.interval = interval
        self.logger = logger
    }

    /// Drains the queue every `interval` (the first time as soon as the read models are live) until graceful shutdown.
    public func run() async throws {
        try await PeriodicWorker("bundle publishing", every: interval, after: projections, logger: logger) {
            _ = try await drain()
        }.run()
    }

    /// Works through the queue once; returns the bundles built or confirmed.
    @discardableResult
    public func drain() async throws -> Int {
        var done = 0
        for (tourId, revision) in try await queued() {
            if let tour = try await catalog.tour(tourId), tour.revision >= revision {
                try await bundles.ensure(tour)
                done += 1
            } else if try await catalog.tour(tourId) != nil {
                continue  // the discovery read model has not reached this revision yet
            }
            try await dequeue(tourId, revision: revision)
        }
        return done
    }

    private func queued() async throws -> [(UUID, Int)] {
        if let sqlite = storage.sqlite {
            return try await sqlite.read { db in
                try Row.fetchAll(db, sql: "SELECT tour_id, revision FROM bundle_queue ORDER BY tour_id LIMIT 100").map {
                    (UUID(uuidString: $0["tour_id"])!, $0["revision"])
                }
            }
        }
        let postgres = storage.postgres!
        var rows: [(UUID, Int)] = []
        for try await (id, revision) in try await postgres.client.query("SELECT tour_id, revision FROM bundle_queue ORDER BY tour_id LIMIT 100",
                                                                       logger: postgres.logger).decode((UUID, Int32).self) {
            rows.append((id, Int(revision)))
        }
        return rows
    }

    /// Removes the row unless a newer revision was queued meanwhile.
    private func dequeue(_ tour: UUID, revision: Int) async throws {
        if let sqlite = storage.sqlite {
            try await sqlite.write { db in
                try db.execute(sql: "DELETE FROM bundle_queue WHERE tour_id = ? AND revision <= ?", arguments: [tour.uuidString.lowercased(), revision])
            }
            return
        }
        let postgres = storage.postgres!
        try await postgres.client.query("DELETE FROM bundle_queue WHERE tour_id = \(tour) AND revision <= \(Int32(revision))",
                                        logger: postgres.logger)
    }
}
