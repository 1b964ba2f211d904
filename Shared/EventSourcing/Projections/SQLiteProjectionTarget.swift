import Foundation
import GRDB

/// Writes a ``SQLiteProjection`` into a SQLite database, with its checkpoint in the same transaction as its rows.
///
/// Batches and rebuilds commit with ``SQLiteServiceDatabase/writeDerived(_:)`` (no `fsync`): the read model is derived
/// from the log in the same file, so a power loss can only rewind it to an earlier checkpoint, from which it replays.
public struct SQLiteProjectionTarget<Projection: SQLiteProjection>: ProjectionTarget {
    /// The database holding the read model (often the same file as the service's log).
    public let database: SQLiteServiceDatabase
    /// The projection.
    public let projection: Projection

    /// Creates a target.
    public init(database: SQLiteServiceDatabase, projection: Projection) {
        self.database = database
        self.projection = projection
    }

    public var name: String { projection.name }
    public var eventTypes: Set<String>? { projection.eventTypes }

    public func prepare() async throws -> Int64 {
        let projection = projection
        return try await database.write { db in
            try SQLiteCheckpoints.migrate(db)
            if let stored = try SQLiteCheckpoints.load(projection.checkpointName, db) { return stored.position }
            // No checkpoint for this schema version: tables of an older version are replaced and the log replayed.
            let tables = ProjectionTables(generation: 1, isRebuild: false)
            for table in projection.tables { try db.execute(sql: "DROP TABLE IF EXISTS \(tables(table))") }
            try projection.createTables(db, tables)
            try SQLiteCheckpoints.save(projection.checkpointName, position: 0, generation: 1, db)
            return 0
        }
    }

    public func apply(_ events: [EventEnvelope]) async throws -> Int64 {
        let projection = projection
        return try await database.writeDerived { db in
            guard let stored = try SQLiteCheckpoints.load(projection.checkpointName, db) else {
                throw ProjectionFailure(projection: projection.name, eventPosition: events.first?.position ?? 0,
                                        eventType: "-", reason: "checkpoint missing: prepare() was not called")
            }
            let tables = ProjectionTables(generation: stored.generation, isRebuild: false)
            var position = stored.position
            for event in events where event.position > position {
                try Self.apply(projection, event, db, tables)
                position = event.position
            }
            if position != stored.position {
                try SQLiteCheckpoints.save(projection.checkpointName, position: position, generation: stored.generation, db)
            }
            return position
        }
    }

    public func advance(to position: Int64) async throws {
        let projection = projection
        try await database.writeDerived { db in
            guard let stored = try SQLiteCheckpoints.load(projection.checkpointName, db), stored.position < position else { return }
            try SQLiteCheckpoints.save(projection.checkpointName, position: position, generation: stored.generation, db)
        }
    }

    public func beginRebuild() async throws -> ProjectionTables {
        let projection = projection
        return try await database.writeDerived { db in
            let generation = (try SQLiteCheckpoints.load(projection.checkpointName, db)?.generation ?? 0) + 1
            let tables = ProjectionTables(generation: generation, isRebuild: true)
            for table in projection.tables {
                try db.execute(sql: "DROP TABLE IF EXISTS \(tables(table))")
            }
            try projection.createTables(db, tables)
            return tables
        }
    }

    public func applyToRebuild(_ events: [EventEnvelope], tables: ProjectionTables) async throws {
        let projection = projection
        try await database.writeDerived { db in
            for event in events { try Self.apply(projection, event, db, tables) }
        }
    }

    public func finishRebuild(_ events: [EventEnvelope], tables: ProjectionTables, position: Int64) async throws {
        let projection = projection
        try await database.writeDerived { db in
            for event in events { try Self.apply(projection, event, db, tables) }
            let live = ProjectionTables(generation: tables.generation, isRebuild: false)
            for table in projection.tables {
                try db.execute(sql: "DROP TABLE IF EXISTS \(live(table))")
                try db.execute(sql: "ALTER TABLE \(tables(table)) RENAME TO \(live(table))")
            }
            try SQLiteCheckpoints.save(projection.checkpointName, position: position, generation: tables.generation, db)
        }
    }

    private static func apply(_ projection: Projection, _ event: EventEnvelope, _ db: Database, _ tables: ProjectionTables) throws {
        do {
            try projection.apply(event, db, tables)
        } catch {
            throw ProjectionFailure(projection: projection.name, eventPosition: event.position, eventType: event.eventType,
                                    reason: "\(error)")
        }
    }
}
