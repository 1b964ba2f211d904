import Contracts
import EventSourcing
import Foundation
import GRDB
import Logging
import Messaging
import PostgresNIO
import ServiceKit
import ServiceLifecycle

// Tour progress from navigation (issue 21, point 5): navigation publishes `TourStopReached` on `waypoint.navigation`
// when a traveller on a tour session enters a stop's trigger radius; tour-management records it through its own
// progress aggregate, exactly as `POST /v1/tours/{id}/progress/stops/{stopId}` would — navigation never writes this
// store. The consumer keeps each arrival in `navigation_arrivals` (in its transaction, deduplicated); the worker
// completes them.

/// One arrival the consumer stored.
public struct NavigationArrival: Sendable, Hashable {
    public var sessionId: UUID
    public var tourId: UUID
    public var stopId: UUID
    public var userId: UUID
    public var reachedAt: Date
}

/// The `waypoint.navigation` consumer on SQLite.
public struct SQLiteNavigationArrivalsHandler: SQLiteEventHandler {
    public var name: String { "navigation_arrivals" }
    public var eventTypes: Set<String>? { [TourStopReached.eventType] }

    public init() {}

    public func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS navigation_arrivals (session_id TEXT NOT NULL, stop_id TEXT NOT NULL, tour_id TEXT NOT NULL,
                user_id TEXT NOT NULL, reached_at_us INTEGER NOT NULL, done INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (session_id, stop_id))
            """)
    }

    public func handle(_ event: PublishedEvent, _ db: Database) throws {
        guard event.eventType == TourStopReached.eventType else { return }
        let e = try event.decode(TourStopReached.self)
        try db.execute(sql: """
            INSERT OR IGNORE INTO navigation_arrivals (session_id, stop_id, tour_id, user_id, reached_at_us) VALUES (?, ?, ?, ?, ?)
            """, arguments: [e.sessionId.uuidString.lowercased(), e.stopId.uuidString.lowercased(), e.tourId.uuidString.lowercased(),
                             e.userId.uuidString.lowercased(), e.reachedAt.microsecondsSince1970])
    }
}

/// The `waypoint.navigation` consumer on PostgreSQL.
public struct PostgresNavigationArrivalsHandler: PostgresEventHandler {
    public var name: String { "navigation_arrivals" }
    public var eventTypes: Set<String>? { [TourStopReached.eventType] }

    public init() {}

    public func createTables(_ connection: PostgresConnection) async throws {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS navigation_arrivals (session_id uuid NOT NULL, stop_id uuid NOT NULL, tour_id uuid NOT NULL,
                user_id uuid NOT NULL, reached_at timestamptz NOT NULL, done boolean NOT NULL DEFAULT false, PRIMARY KEY (session_id, stop_id))
            """, logger: connection.logger)
    }

    public func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws {
        guard event.eventType == TourStopReached.eventType else { return }
        let e = try event.decode(TourStopReached.self)
        try await connection.query("""
            INSERT INTO navigation_arrivals (session_id, stop_id, tour_id, user_id, reached_at)
            VALUES (\(e.sessionId), \(e.stopId), \(e.tourId), \(e.userId), \(e.reachedAt)) ON CONFLICT DO NOTHING
            """, logger: connection.logger)
    }
}

/// The arrivals not yet recorded as progress.
public protocol NavigationArrivalStore: Sendable {
    func pending() async throws -> [NavigationArrival]
    func markDone(_ arrival: NavigationArrival) async throws
}

/// ``NavigationArrivalStore`` on SQLite.
public struct SQLiteNavigationArrivalStore: NavigationArrivalStore {
    let database: SQLiteServiceDatabase

    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func pending() async throws -> [NavigationArrival] {
        try await database.read { db in
            guard try db.tableExists("navigation_arrivals") else { return [] }
            return try Row.fetchAll(db, sql: """
                SELECT session_id, stop_id, tour_id, user_id, reached_at_us FROM navigation_arrivals WHERE done = 0 ORDER BY reached_at_us LIMIT 100
                """).compactMap { row in
                guard let session = UUID(uuidString: row[0]), let stop = UUID(uuidString: row[1]), let tour = UUID(uuidString: row[2]),
                      let user = UUID(uuidString: row[3]) else { return nil }
                return NavigationArrival(sessionId: session, tourId: tour, stopId: stop, userId: user,
                                         reachedAt: Date(timeIntervalSince1970: Double(row[4] as Int64) / 1_000_000))
            }
        }
    }

    public func markDone(_ arrival: NavigationArrival) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE navigation_arrivals SET done = 1 WHERE session_id = ? AND stop_id = ?",
                           arguments: [arrival.sessionId.uuidString.lowercased(), arrival.stopId.uuidString.lowercased()])
        }
    }
}

/// ``NavigationArrivalStore`` on PostgreSQL.
public struct PostgresNavigationArrivalStore: NavigationArrivalStore {
    let database: PostgresServiceDatabase

    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func pending() async throws -> [NavigationArrival] {
        guard try await database.tableExists("navigation_arrivals") else { return [] }
        var arrivals: [NavigationArrival] = []
        for try await (session, stop, tour, user, at) in try await database.client.query("""
            SELECT session_id, stop_id, tour_id, user_id, reached_at FROM navigation_arrivals WHERE NOT done ORDER BY reached_at LIMIT 100
            """, logger: database.logger).decode((UUID, UUID, UUID, UUID, Date).self) {
            arrivals.append(NavigationArrival(sessionId: session, tourId: tour, stopId: stop, userId: user, reachedAt: at))
        }
        return arrivals
    }

    public func markDone(_ arrival: NavigationArrival) async throws {
        try await database.client.query("UPDATE navigation_arrivals SET done = true WHERE session_id = \(arrival.sessionId) AND stop_id = \(arrival.stopId)",
                                        logger: database.logger)
    }
}

/// Records the stored arrivals as the travellers' progress (``TourProgressAggregate``'s `complete`, as the progress
/// route does); an arrival at a tour that is gone, or at a stop the tour no longer has, is dropped with a notice.
public struct NavigationArrivalsWorker: Service {
    let store: any NavigationArrivalStore
    let catalog: TourCatalog
    let repository: AggregateRepository<TourProgressAggregate, AnyEventStore>
    let now: @Sendable () -> Date
    let logger: Logger

    public init(store: any NavigationArrivalStore, catalog: TourCatalog, events: AnyEventStore, now: @escaping @Sendable () -> Date = Date.init,
                logger: Logger) {
        self.store = store
        self.catalog = catalog
        repository = AggregateRepository(store: events)
        self.now = now
        self.logger = logger
    }

    /// One round: every pending arrival; returns how many were recorded.
    @discardableResult
    public func recordPending() async throws -> Int {
        var recorded = 0
        for arrival in try await store.pending() {
            if let tour = try await catalog.tour(arrival.tourId, includeUnlisted: true) {
                let command = TourProgressAggregate.Command.complete(tour: ProgressRoutes.facts(tour), user: arrival.userId,
                                                                     completions: [.init(stopId: arrival.stopId, completedAt: arrival.reachedAt)], at: now())
                do {
                    try await repository.execute(command, on: TourProgressAggregate.streamID(tour: tour.tourId, user: arrival.userId), retries: 5)
                    recorded += 1
                } catch ProgressError.unknownStops {
                    logger.notice("navigation arrival at a stop the tour no longer has; dropped", metadata: ["tour": "\(arrival.tourId)"])
                }
            } else {
                logger.notice("navigation arrival at a tour that is not published; dropped", metadata: ["tour": "\(arrival.tourId)"])
            }
            try await store.markDone(arrival)
        }
        return recorded
    }

    public func run() async throws {
        try await PeriodicWorker("navigation arrivals", every: .milliseconds(500), logger: logger) { try await recordPending() }.run()
    }
}
