import GRDB

/// A read model kept in a service's SQLite database.
///
/// Write it against ``ProjectionTables`` names (`tables("tours")`) so the runner can rebuild it into fresh tables.
/// `apply` runs inside the batch's transaction; throw to stop the projection (never skip an event you cannot read),
/// and ignore event types you do not know.
public protocol SQLiteProjection: ProjectionSchema {
    /// Unique name; also the key of its checkpoint.
    var name: String { get }
    /// The logical names of the tables it owns.
    var tables: [String] { get }
    /// Creates the tables and indexes for `tables`.
    func createTables(_ db: Database, _ tables: ProjectionTables) throws
    /// Applies one event.
    func apply(_ event: EventEnvelope, _ db: Database, _ tables: ProjectionTables) throws
}

/// The checkpoint table on SQLite, shared by projections, relays and consumers.
public enum SQLiteCheckpoints {
    /// Creates the checkpoint table if needed (inside a transaction).
    public static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS es_projections (
                name        TEXT PRIMARY KEY,
                position    INTEGER NOT NULL,
                generation  INTEGER NOT NULL,
                updated_at_us INTEGER NOT NULL
            )
            """)
    }

    static func load(_ name: String, _ db: Database) throws -> (position: Int64, generation: Int)? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT position, generation FROM es_projections WHERE name = ?"), arguments: [name])
            .map { ($0[0], $0[1]) }
    }

    /// Written after every batch a projection, relay or consumer applies: prepared once per connection (GRDB's
    /// statement cache), as the checkpoint's read, not parsed again each time.
    static func save(_ name: String, position: Int64, generation: Int, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO es_projections (name, position, generation, updated_at_us) VALUES (?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET position = excluded.position, generation = excluded.generation,
                updated_at_us = excluded.updated_at_us
            """).execute(arguments: [name, position, generation, Date().microsecondsSince1970])
    }
}

import Foundation
