import GRDB
import Logging
import PostgresNIO

/// The ordered schema history of one service database, on both backends: each migration runs once, in the order it
/// was declared, and is recorded by name in the table `service_migrations` (GRDB's `DatabaseMigrator` idea, with one
/// API for SQLite and PostgreSQL).
///
/// ```swift
/// var migrations = ServiceMigrations()
/// migrations.migration("2026-11-26-commerce", sqlite: { db in
///     try db.execute(sql: "CREATE TABLE IF NOT EXISTS exchange_rates (…)")
/// }, postgres: { db in
///     try await db.execute("CREATE TABLE IF NOT EXISTS exchange_rates (…)")
/// })
/// ```
///
/// Append new migrations at the end and never edit one that shipped: a database records names, not contents. The
/// first migration of a service uses `IF NOT EXISTS` statements, so databases created before the migrator existed open
/// unchanged and only record it. Each migration runs in its own transaction with its record: a failing one leaves
/// neither its changes nor its name behind. Read models keep their own schemas (``ProjectionSchema/schemaVersion``).
public struct ServiceMigrations: Sendable {
    /// The migrations in the order they run.
    public private(set) var all: [ServiceMigration] = []

    /// No migrations yet.
    public init() {}

    /// The migration names in the order they run.
    public var names: [String] { all.map(\.name) }

    /// Appends a migration.
    ///
    /// - Parameters:
    ///   - name: unique within this database, e.g. `2026-11-26-commerce`; it is what is recorded.
    ///   - sqlite: the statements on SQLite, inside the migration's `BEGIN IMMEDIATE` transaction.
    ///   - postgres: the statements on PostgreSQL, inside the migration's transaction.
    public mutating func migration(_ name: String, sqlite: @escaping @Sendable (Database) throws -> Void,
                                   postgres: @escaping @Sendable (PostgresMigrationConnection) async throws -> Void) {
        precondition(!names.contains(name), "migration \(name) is declared twice")
        all.append(ServiceMigration(name: name, sqlite: sqlite, postgres: postgres))
    }

    /// These migrations followed by `other`'s (a service composing a library's migrations with its own).
    public func appending(_ other: ServiceMigrations) -> ServiceMigrations {
        var result = self
        for migration in other.all { result.migration(migration.name, sqlite: migration.sqlite, postgres: migration.postgres) }
        return result
    }

    /// The table recording applied migrations.
    public static let table = "service_migrations"
}

/// One named step of a ``ServiceMigrations`` history.
public struct ServiceMigration: Sendable {
    /// Unique name, recorded once applied.
    public let name: String
    /// The statements on SQLite.
    let sqlite: @Sendable (Database) throws -> Void
    /// The statements on PostgreSQL.
    let postgres: @Sendable (PostgresMigrationConnection) async throws -> Void
}

/// The connection a PostgreSQL migration runs its statements on, inside the migration's transaction.
public struct PostgresMigrationConnection: Sendable {
    /// The transaction's connection.
    public let connection: PostgresConnection
    /// The logger statements run with.
    public let logger: Logger

    /// Runs one statement (bind values by interpolation: `"… \(value)"`).
    public func execute(_ query: PostgresQuery) async throws {
        try await connection.query(query, logger: logger)
    }
}
