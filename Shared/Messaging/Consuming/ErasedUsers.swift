import Contracts
import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// The tables in which a service remembers `UserErased` (from `waypoint.auth`) until it has carried the erasure out:
/// `erased` (filled by the consumer, ``SQLiteErasedUsersHandler``) and `applied` (filled by the service's erasure
/// worker through ``ErasedUsersStore/markApplied(_:)``). The names are the service's own (record-trip: `erased_riders`,
/// `rider_erasures_applied`; path-review: `erased_authors`, `author_erasures_applied`); the consumer's name is `erased`.
public struct ErasedUsersTables: Sendable, Hashable {
    public var erased: String
    public var applied: String

    public init(erased: String, applied: String) {
        (self.erased, self.applied) = (erased, applied)
    }
}

/// The `waypoint.auth` consumer that remembers each `UserErased` inside the consumer's transaction (with its dedupe
/// record); the service's worker then carries the erasure out and marks it applied.
public struct SQLiteErasedUsersHandler: SQLiteEventHandler {
    public let tables: ErasedUsersTables
    public var name: String { tables.erased }

    public init(_ tables: ErasedUsersTables) {
        self.tables = tables
    }

    public func createTables(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(tables.erased) (user_id TEXT PRIMARY KEY, erased_at_us INTEGER NOT NULL) WITHOUT ROWID")
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(tables.applied) (user_id TEXT PRIMARY KEY, applied_at_us INTEGER NOT NULL)")
    }

    public var eventTypes: Set<String>? { [UserErased.eventType] }

    public func handle(_ event: PublishedEvent, _ db: Database) throws {
        guard event.eventType == UserErased.eventType else { return }
        let erased = try event.decode(UserErased.self)
        try db.execute(sql: "INSERT OR IGNORE INTO \(tables.erased) (user_id, erased_at_us) VALUES (?, ?)",
                       arguments: [erased.userId.uuidString.lowercased(), erased.erasedAt.microsecondsSince1970])
    }
}

/// ``SQLiteErasedUsersHandler`` on PostgreSQL.
public struct PostgresErasedUsersHandler: PostgresEventHandler {
    public let tables: ErasedUsersTables
    public var name: String { tables.erased }

    public init(_ tables: ErasedUsersTables) {
        self.tables = tables
    }

    public func createTables(_ connection: PostgresConnection) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(tables.erased) (user_id uuid PRIMARY KEY, erased_at timestamptz NOT NULL)"),
                                   logger: connection.logger)
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(tables.applied) (user_id uuid PRIMARY KEY, applied_at timestamptz NOT NULL)"),
                                   logger: connection.logger)
    }

    public var eventTypes: Set<String>? { [UserErased.eventType] }

    public func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws {
        guard event.eventType == UserErased.eventType else { return }
        let erased = try event.decode(UserErased.self)
        try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(tables.erased) (user_id, erased_at) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING",
                                                 binds: try Self.binds(erased.userId, erased.erasedAt)), logger: connection.logger)
    }

    static func binds(_ user: UUID, _ at: Date) throws -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(user)
        binds.append(at)
        return binds
    }
}

/// Erased users whose erasure the service has still to carry out.
public protocol ErasedUsersStore: Sendable {
    /// Up to 100 erased users not yet handled.
    func pending() async throws -> [UUID]
    /// Records that `user`'s erasure is carried out (idempotent).
    func markApplied(_ user: UUID) async throws
}

/// ``ErasedUsersStore`` in the embedded SQLite database.
public struct SQLiteErasedUsersStore: ErasedUsersStore {
    let database: SQLiteServiceDatabase
    let tables: ErasedUsersTables

    public init(database: SQLiteServiceDatabase, tables: ErasedUsersTables) {
        (self.database, self.tables) = (database, tables)
    }

    public func pending() async throws -> [UUID] {
        let tables = tables
        return try await database.read { db in
            guard try db.tableExists(tables.erased), try db.tableExists(tables.applied) else { return [] }
            return try String.fetchAll(db, sql: """
                SELECT user_id FROM \(tables.erased) WHERE user_id NOT IN (SELECT user_id FROM \(tables.applied)) LIMIT 100
                """).compactMap(UUID.init(uuidString:))
        }
    }

    public func markApplied(_ user: UUID) async throws {
        let tables = tables
        try await database.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO \(tables.applied) (user_id, applied_at_us) VALUES (?, ?)",
                           arguments: [user.uuidString.lowercased(), Date().microsecondsSince1970])
        }
    }
}

/// ``ErasedUsersStore`` in the service's PostgreSQL database.
public struct PostgresErasedUsersStore: ErasedUsersStore {
    let database: PostgresServiceDatabase
    let tables: ErasedUsersTables

    public init(database: PostgresServiceDatabase, tables: ErasedUsersTables) {
        (self.database, self.tables) = (database, tables)
    }

    public func pending() async throws -> [UUID] {
        guard try await database.tableExists(tables.erased), try await database.tableExists(tables.applied) else { return [] }
        var users: [UUID] = []
        let sql = "SELECT user_id FROM \(tables.erased) WHERE user_id NOT IN (SELECT user_id FROM \(tables.applied)) LIMIT 100"
        for try await (id) in try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).decode(UUID.self) {
            users.append(id)
        }
        return users
    }

    public func markApplied(_ user: UUID) async throws {
        var binds = PostgresBindings()
        binds.append(user)
        try await database.client.query(PostgresQuery(unsafeSQL: "INSERT INTO \(tables.applied) (user_id, applied_at) VALUES ($1, now()) ON CONFLICT (user_id) DO NOTHING",
                                                      binds: binds), logger: database.logger)
    }
}
