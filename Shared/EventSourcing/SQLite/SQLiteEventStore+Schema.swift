import Foundation
import GRDB

extension SQLiteEventStore {
    /// Version of the log's table layout, recorded in `es_schema`.
    static let schemaVersion = 1

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS es_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS es_events (
                position        INTEGER PRIMARY KEY,
                event_id        BLOB    NOT NULL UNIQUE,
                stream_id       TEXT    NOT NULL,
                stream_version  INTEGER NOT NULL,
                event_type      TEXT    NOT NULL,
                schema_version  INTEGER NOT NULL,
                payload         BLOB    NOT NULL,
                correlation_id  BLOB,
                causation_id    BLOB,
                actor_id        TEXT,
                traceparent     TEXT,
                recorded_at_us  INTEGER NOT NULL,
                UNIQUE (stream_id, stream_version)
            );
            CREATE TABLE IF NOT EXISTS es_snapshots (
                stream_id       TEXT PRIMARY KEY,
                stream_version  INTEGER NOT NULL,
                state_version   INTEGER NOT NULL,
                state           BLOB    NOT NULL,
                taken_at_us     INTEGER NOT NULL
            );
            """)
        let stored = try Int.fetchOne(db, sql: "SELECT version FROM es_schema WHERE component = 'event-log'")
        if let stored, stored > schemaVersion {
            throw EventStoreError.incompatibleSchema("event log schema \(stored) is newer than \(schemaVersion)")
        }
        try db.execute(sql: "INSERT OR REPLACE INTO es_schema (component, version) VALUES ('event-log', ?)", arguments: [schemaVersion])
    }

    static let columns = """
        position, event_id, stream_id, stream_version, event_type, schema_version, payload,
        correlation_id, causation_id, actor_id, traceparent, recorded_at_us
        """

    /// The log's last position; read by every typed read and feed page, so prepared once per connection.
    static func head(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(position) FROM es_events")) ?? 0
    }

    /// A stream's current version (0 for a stream without events): read by `streamVersion` and for every stream of a
    /// group commit, through one cached statement.
    static func streamVersion(_ streamID: String, _ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(stream_version) FROM es_events WHERE stream_id = ?"),
                           arguments: [streamID]) ?? 0
    }

    static func fetchEvents(_ db: Database, sql: String, arguments: StatementArguments) throws -> [EventEnvelope] {
        let statement = try db.cachedStatement(sql: sql)
        let cursor = try Row.fetchCursor(statement, arguments: arguments)
        var events: [EventEnvelope] = []
        while let row = try cursor.next() {
            events.append(EventEnvelope(
                eventID: row[1], streamID: row[2], streamVersion: row[3], position: row[0], eventType: row[4],
                schemaVersion: row[5], payload: row[6],
                metadata: EventMetadata(correlationID: row[7], causationID: row[8], actorID: row[9], traceparent: row[10]),
                recordedAt: Date(microsecondsSince1970: row[11])))
        }
        return events
    }
}
