import Foundation
import PostgresNIO

extension PostgresServiceDatabase {
    /// Applies the migrations of `migrations` this schema has not recorded yet, in order; returns the names applied now.
    ///
    /// Each runs in its own transaction under a transaction-scoped advisory lock keyed by the schema, so processes
    /// (or test suites) opening one schema together apply each migration once: the others wait for the lock, then find
    /// the record. The schema and the `service_migrations` table are created under the same lock.
    @discardableResult
    public func migrate(_ migrations: ServiceMigrations) async throws -> [String] {
        var applied: [String] = []
        for migration in migrations.all {
            let ran = try await transaction { connection in
                try await lockMigrations(connection)
                let rows = try await connection.query(
                    "SELECT name FROM \(unescaped: ServiceMigrations.table) WHERE name = \(migration.name)", logger: logger)
                for try await _ in rows { return false }
                try await migration.postgres(PostgresMigrationConnection(connection: connection, logger: logger))
                try await connection.query("""
                    INSERT INTO \(unescaped: ServiceMigrations.table) (name, applied_at_us)
                    VALUES (\(migration.name), \(Date().microsecondsSince1970))
                    """, logger: logger)
                return true
            }
            if ran { applied.append(migration.name) }
        }
        return applied
    }

    /// The names of the migrations this schema has recorded, in the order they were applied.
    public func appliedMigrations() async throws -> [String] {
        guard try await tableExists(ServiceMigrations.table) else { return [] }
        let rows = try await client.query(
            "SELECT name FROM \(unescaped: ServiceMigrations.table) ORDER BY applied_at_us, name", logger: logger)
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    /// Takes the schema's migration lock for the rest of the transaction, then makes sure the schema and the record
    /// table exist (concurrent `CREATE … IF NOT EXISTS` may fail on PostgreSQL; under the lock they cannot race).
    private func lockMigrations(_ connection: PostgresConnection) async throws {
        let key = "waypoint.migrations.\(schema)"
        try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(key)))", logger: logger)
        if schema != "public" {
            try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: "\"\(schema)\"")", logger: logger)
        }
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS \(unescaped: ServiceMigrations.table) (name text PRIMARY KEY, applied_at_us bigint NOT NULL)
            """, logger: logger)
    }
}
