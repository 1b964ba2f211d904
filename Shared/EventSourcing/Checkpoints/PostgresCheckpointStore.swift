import Logging
import PostgresNIO

/// Checkpoints in a PostgreSQL service database.
public struct PostgresCheckpointStore: CheckpointStore {
    let database: PostgresServiceDatabase

    /// Opens the checkpoint table, creating it if needed. The database must be running.
    public init(database: PostgresServiceDatabase) async throws {
        self.database = database
        try await database.createSchemaIfNeeded()
        try await database.transaction { connection in
            try await PostgresCheckpoints.migrate(connection, logger: database.logger)
        }
    }

    public func position(of name: String) async throws -> Int64 {
        let rows = try await database.client.query("SELECT position FROM es_projections WHERE name = \(name)", logger: database.logger)
        for try await position in rows.decode(Int64.self) { return position }
        return 0
    }

    public func save(_ position: Int64, for name: String) async throws {
        try await database.transaction { connection in try await Self.save(position, for: name, on: connection) }
    }

    /// Reads a position inside an open transaction.
    public static func position(of name: String, on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query("SELECT position FROM es_projections WHERE name = \(name)", logger: connection.logger)
        for try await position in rows.decode(Int64.self) { return position }
        return 0
    }

    /// Stores a position inside an open transaction (monotonic).
    public static func save(_ position: Int64, for name: String, on connection: PostgresConnection) async throws {
        try await connection.query("""
            INSERT INTO es_projections (name, position, generation, updated_at) VALUES (\(name), \(position), 1, now())
            ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = now()
            WHERE es_projections.position < excluded.position
            """, logger: connection.logger)
    }
}

/// The checkpoint table's DDL on PostgreSQL, shared by projections, relays and consumers.
public enum PostgresCheckpoints {
    /// Creates the checkpoint table if needed (inside a transaction).
    public static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(7300002)", logger: logger)
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS es_projections (
                name text PRIMARY KEY, position bigint NOT NULL, generation int NOT NULL, updated_at timestamptz NOT NULL)
            """, logger: logger)
    }
}
