import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// One session in the `navigation_sessions` read model: whose it is and where it stands (what `GET
/// /v1/navigation/sessions/current` finds).
struct SessionListRow: Sendable, Hashable {
    var sessionId: UUID
    var riderId: UUID
    var status: SessionStatus
    var startedAt: Int64
}

/// How session events change a row (`nil`: not a change of the list); both backends apply exactly this.
enum SessionListFold {
    /// The row's new status, or a new row.
    enum Change {
        case insert(SessionListRow)
        case status(UUID, SessionStatus)
    }

    /// The event types that change the list; the others (a position update per fix) are passed over before decoding.
    static let types: Set<String> = [SessionStarted.eventType, SessionPaused.eventType, SessionResumed.eventType, NavigationArrived.eventType,
                                     NavigationSessionEnded.eventType]

    static func change(_ event: SessionEvent) -> Change? {
        switch event {
        case .started(let e):
            .insert(SessionListRow(sessionId: e.sessionId, riderId: e.riderId, status: .active, startedAt: e.startedAt.microsecondsSince1970))
        case .paused(let e): .status(e.sessionId, .paused)
        case .resumed(let e): .status(e.sessionId, .active)
        case .arrived(let e): .status(e.sessionId, .arrived)
        case .ended(let e): .status(e.sessionId, .ended)
        case .publishedStart, .tracked, .rerouted, .publishedReroute, .stopReached, .publishedStop: nil
        }
    }
}

/// The `navigation_sessions` read model on SQLite.
public struct SQLiteSessionListProjection: SQLiteProjection {
    public let name = "navigation_sessions"
    /// Only what changes the list: position updates (one per fix) are never read.
    public var eventTypes: Set<String>? { SessionListFold.types }
    public let tables = ["navigation_sessions"]
    public var schemaVersion: Int { 1 }

    public init() {}

    public func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("navigation_sessions")) (session_id TEXT PRIMARY KEY, rider_id TEXT NOT NULL, status TEXT NOT NULL,
                started_at_us INTEGER NOT NULL);
            CREATE INDEX \(t.index("navigation_sessions_rider")) ON \(t("navigation_sessions")) (rider_id, started_at_us);
            """)
    }

    public func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard SessionListFold.types.contains(event.eventType), let decoded = try NavigationSessionAggregate.eventTypes.decode(event), let change = SessionListFold.change(decoded) else { return }
        switch change {
        case .insert(let row):
            try db.execute(sql: "INSERT OR IGNORE INTO \(t("navigation_sessions")) (session_id, rider_id, status, started_at_us) VALUES (?, ?, ?, ?)",
                           arguments: [row.sessionId.uuidString.lowercased(), row.riderId.uuidString.lowercased(), row.status.rawValue, row.startedAt])
        case .status(let id, let status):
            try db.execute(sql: "UPDATE \(t("navigation_sessions")) SET status = ? WHERE session_id = ?", arguments: [status.rawValue, id.uuidString.lowercased()])
        }
    }
}

/// The `navigation_sessions` read model on PostgreSQL.
public struct PostgresSessionListProjection: PostgresProjection {
    public let name = "navigation_sessions"
    /// Only what changes the list: position updates (one per fix) are never read.
    public var eventTypes: Set<String>? { SessionListFold.types }
    public let tables = ["navigation_sessions"]
    public var schemaVersion: Int { 1 }

    public init() {}

    public func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        for statement in [
            "CREATE TABLE \(t("navigation_sessions")) (session_id uuid PRIMARY KEY, rider_id uuid NOT NULL, status text NOT NULL, started_at_us bigint NOT NULL)",
            "CREATE INDEX \(t.index("navigation_sessions_rider")) ON \(t("navigation_sessions")) (rider_id, started_at_us)",
        ] {
            try await connection.query("\(unescaped: statement)", logger: connection.logger)
        }
    }

    public func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard SessionListFold.types.contains(event.eventType), let decoded = try NavigationSessionAggregate.eventTypes.decode(event), let change = SessionListFold.change(decoded) else { return }
        switch change {
        case .insert(let row):
            try await connection.query("""
                INSERT INTO \(unescaped: t("navigation_sessions")) (session_id, rider_id, status, started_at_us)
                VALUES (\(row.sessionId), \(row.riderId), \(row.status.rawValue), \(row.startedAt)) ON CONFLICT (session_id) DO NOTHING
                """, logger: connection.logger)
        case .status(let id, let status):
            try await connection.query("UPDATE \(unescaped: t("navigation_sessions")) SET status = \(status.rawValue) WHERE session_id = \(id)",
                                       logger: connection.logger)
        }
    }
}

/// Reads of `navigation_sessions`.
public protocol SessionListStore: Sendable {
    /// The rider's newest session that has not ended, if any.
    func current(of rider: UUID) async throws -> UUID?
}

/// ``SessionListStore`` on SQLite.
public struct SQLiteSessionListStore: SessionListStore {
    let database: SQLiteServiceDatabase

    public init(database: SQLiteServiceDatabase) {
        self.database = database
    }

    public func current(of rider: UUID) async throws -> UUID? {
        try await database.read { db in
            guard try db.tableExists("navigation_sessions") else { return nil }
            return try String.fetchOne(db, sql: """
                SELECT session_id FROM navigation_sessions WHERE rider_id = ? AND status <> 'ended' ORDER BY started_at_us DESC LIMIT 1
                """, arguments: [rider.uuidString.lowercased()]).flatMap(UUID.init(uuidString:))
        }
    }
}

/// ``SessionListStore`` on PostgreSQL.
public struct PostgresSessionListStore: SessionListStore {
    let database: PostgresServiceDatabase

    public init(database: PostgresServiceDatabase) {
        self.database = database
    }

    public func current(of rider: UUID) async throws -> UUID? {
        guard try await database.tableExists("navigation_sessions") else { return nil }
        for try await id in try await database.client.query("""
            SELECT session_id FROM navigation_sessions WHERE rider_id = \(rider) AND status <> 'ended' ORDER BY started_at_us DESC LIMIT 1
            """, logger: database.logger).decode(UUID.self) {
            return id
        }
        return nil
    }
}
