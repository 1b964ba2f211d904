import Foundation
import Logging
import PostgresNIO

/// Writes a ``PostgresProjection`` into a PostgreSQL database, with its checkpoint in the same transaction as its rows.
///
/// The checkpoint row is locked (`FOR UPDATE`) for the batch, so several service instances running the same
/// projection apply each event once.
public struct PostgresProjectionTarget<Projection: PostgresProjection>: ProjectionTarget {
    /// The database holding the read model.
    public let database: PostgresServiceDatabase
    /// The projection.
    public let projection: Projection

    /// Creates a target.
    public init(database: PostgresServiceDatabase, projection: Projection) {
        self.database = database
        self.projection = projection
    }

    public var name: String { projection.name }
    public var eventTypes: Set<String>? { projection.eventTypes }

    public func prepare() async throws -> Int64 {
        try await database.createSchemaIfNeeded()
        return try await transaction { connection, logger in
            try await PostgresCheckpoints.migrate(connection, logger: logger)
            if let stored = try await Self.checkpoint(projection.checkpointName, connection, logger, lock: false) { return stored.position }
            // No checkpoint for this schema version: tables of an older version are replaced and the log replayed.
            let tables = ProjectionTables(generation: 1, isRebuild: false)
            for table in projection.tables {
                try await connection.query("DROP TABLE IF EXISTS \(unescaped: tables(table))", logger: logger)
            }
            try await projection.createTables(connection, tables)
            try await Self.save(projection.checkpointName, position: 0, generation: 1, connection, logger)
            return 0
        }
    }

    public func apply(_ events: [EventEnvelope]) async throws -> Int64 {
        try await transaction { connection, logger in
            guard let stored = try await Self.checkpoint(projection.checkpointName, connection, logger, lock: true) else {
                throw ProjectionFailure(projection: projection.name, eventPosition: events.first?.position ?? 0,
                                        eventType: "-", reason: "checkpoint missing: prepare() was not called")
            }
            let tables = ProjectionTables(generation: stored.generation, isRebuild: false)
            var position = stored.position
            for event in events where event.position > position {
                try await apply(event, connection, tables)
                position = event.position
            }
            if position != stored.position {
                try await Self.save(projection.checkpointName, position: position, generation: stored.generation, connection, logger)
            }
            return position
        }
    }

    public func advance(to position: Int64) async throws {
        try await transaction { connection, logger in
            guard let stored = try await Self.checkpoint(projection.checkpointName, connection, logger, lock: true), stored.position < position else { return }
            try await Self.save(projection.checkpointName, position: position, generation: stored.generation, connection, logger)
        }
    }

    public func beginRebuild() async throws -> ProjectionTables {
        try await transaction { connection, logger in
            let generation = (try await Self.checkpoint(projection.checkpointName, connection, logger, lock: false)?.generation ?? 0) + 1
            let tables = ProjectionTables(generation: generation, isRebuild: true)
            for table in projection.tables {
                try await connection.query("DROP TABLE IF EXISTS \(unescaped: tables(table))", logger: logger)
            }
            try await projection.createTables(connection, tables)
            return tables
        }
    }

    public func applyToRebuild(_ events: [EventEnvelope], tables: ProjectionTables) async throws {
        try await transaction { connection, _ in
            for event in events { try await apply(event, connection, tables) }
        }
    }

    public func finishRebuild(_ events: [EventEnvelope], tables: ProjectionTables, position: Int64) async throws {
        try await transaction { connection, logger in
            _ = try await Self.checkpoint(projection.checkpointName, connection, logger, lock: true)
            for event in events { try await apply(event, connection, tables) }
            let live = ProjectionTables(generation: tables.generation, isRebuild: false)
            for table in projection.tables {
                try await connection.query("DROP TABLE IF EXISTS \(unescaped: live(table))", logger: logger)
                try await connection.query("ALTER TABLE \(unescaped: tables(table)) RENAME TO \(unescaped: live(table))", logger: logger)
            }
            try await Self.save(projection.checkpointName, position: position, generation: tables.generation, connection, logger)
        }
    }

    private func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ tables: ProjectionTables) async throws {
        do {
            try await projection.apply(event, connection, tables)
        } catch {
            throw ProjectionFailure(projection: projection.name, eventPosition: event.position, eventType: event.eventType,
                                    reason: "\(error)")
        }
    }

    private func transaction<T: Sendable>(_ body: (PostgresConnection, Logger) async throws -> T) async throws -> T {
        let logger = database.logger
        return try await database.transaction { connection in try await body(connection, logger) }
    }

    private static func checkpoint(
        _ name: String, _ connection: PostgresConnection, _ logger: Logger, lock: Bool
    ) async throws -> (position: Int64, generation: Int)? {
        let query: PostgresQuery = lock
            ? "SELECT position, generation FROM es_projections WHERE name = \(name) FOR UPDATE"
            : "SELECT position, generation FROM es_projections WHERE name = \(name)"
        for try await (position, generation) in try await connection.query(query, logger: logger).decode((Int64, Int32).self) {
            return (position, Int(generation))
        }
        return nil
    }

    private static func save(_ name: String, position: Int64, generation: Int, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("""
            INSERT INTO es_projections (name, position, generation, updated_at) VALUES (\(name), \(position), \(Int32(generation)), now())
            ON CONFLICT (name) DO UPDATE SET position = excluded.position, generation = excluded.generation, updated_at = now()
            """, logger: logger)
    }
}
