import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// The test read model: per stream, how many notes and the last text. Same model on both backends.
enum NoteEvents {
    static let types = EventTypeMap<Note>().registering(NoteAdded.self) { Note(text: $0.text, number: $0.number) }
}

/// The payload type of `NoteAdded`.
struct NoteAdded: EventPayload {
    static let eventType = "NoteAdded"
    var text: String
    var number: Int
}

struct SQLiteNoteProjection: SQLiteProjection {
    var name = "notes"
    var tables = ["note_counts"]
    var schemaVersion = 1
    var eventTypes: Set<String>?

    func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("note_counts")) (stream_id TEXT PRIMARY KEY, notes INTEGER NOT NULL, total INTEGER NOT NULL, last_text TEXT NOT NULL);
            CREATE INDEX \(t.index("note_counts_by_total")) ON \(t("note_counts")) (total);
            """)
    }

    func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let note = try NoteEvents.types.decode(event) else { return }
        try db.execute(sql: """
            INSERT INTO \(t("note_counts")) (stream_id, notes, total, last_text) VALUES (?, 1, ?, ?)
            ON CONFLICT (stream_id) DO UPDATE SET notes = notes + 1, total = total + excluded.total, last_text = excluded.last_text
            """, arguments: [event.streamID, note.number, note.text])
    }
}

struct PostgresNoteProjection: PostgresProjection {
    var name = "notes"
    var tables = ["note_counts"]
    var schemaVersion = 1
    var eventTypes: Set<String>?

    func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: """
            CREATE TABLE \(t("note_counts")) (stream_id text PRIMARY KEY, notes bigint NOT NULL, total bigint NOT NULL, last_text text NOT NULL)
            """), logger: connection.logger)
        try await connection.query(PostgresQuery(unsafeSQL: """
            CREATE INDEX \(t.index("note_counts_by_total")) ON \(t("note_counts")) (total)
            """), logger: connection.logger)
    }

    func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let note = try NoteEvents.types.decode(event) else { return }
        var query = PostgresQuery(unsafeSQL: """
            INSERT INTO \(t("note_counts")) (stream_id, notes, total, last_text) VALUES ($1, 1, $2, $3)
            ON CONFLICT (stream_id) DO UPDATE SET notes = \(t("note_counts")).notes + 1,
                total = \(t("note_counts")).total + excluded.total, last_text = excluded.last_text
            """)
        query.binds.append(event.streamID)
        query.binds.append(Int64(note.number))
        query.binds.append(note.text)
        try await connection.query(query, logger: connection.logger)
    }
}

/// One row of the read model, for comparisons.
struct NoteCount: Hashable, Sendable {
    var streamID: String
    var notes: Int64
    var total: Int64
    var lastText: String
}

/// The projection runner and a way to read its rows, whichever backend.
struct NoteReadModel: Sendable {
    let connection: TestDatabase.Connection

    /// `eventTypes`: the projection names the types it reads (`nil`: it reads every event).
    func runner<Store: EventStore>(_ store: Store, batchSize: Int = 100, schemaVersion: Int = 1,
                                   eventTypes: Set<String>? = nil) -> any ProjectionRunning {
        switch connection {
        case .sqlite(let database):
            ProjectionRunner(store: store, target: SQLiteProjectionTarget(database: database, projection: SQLiteNoteProjection(schemaVersion: schemaVersion,
                                                                                                                              eventTypes: eventTypes)),
                             batchSize: batchSize, pollInterval: .milliseconds(20))
        case .postgres(let database):
            ProjectionRunner(store: store, target: PostgresProjectionTarget(database: database,
                                                                           projection: PostgresNoteProjection(schemaVersion: schemaVersion,
                                                                                                              eventTypes: eventTypes)),
                             batchSize: batchSize, pollInterval: .milliseconds(20))
        }
    }

    /// The stored checkpoint of the `notes` projection (schema version 1).
    func checkpoint() async throws -> Int64? {
        switch connection {
        case .sqlite(let database):
            try await database.read { db in try Int64.fetchOne(db, sql: "SELECT position FROM es_projections WHERE name = 'notes'") }
        case .postgres(let database):
            try await database.client.query("SELECT position FROM es_projections WHERE name = 'notes'")
                .decode(Int64.self).reduce(into: [Int64]()) { $0.append($1) }.first
        }
    }

    func rows() async throws -> Set<NoteCount> {
        switch connection {
        case .sqlite(let database):
            try await database.read { db in
                Set(try Row.fetchAll(db, sql: "SELECT stream_id, notes, total, last_text FROM note_counts").map {
                    NoteCount(streamID: $0[0], notes: $0[1], total: $0[2], lastText: $0[3])
                })
            }
        case .postgres(let database):
            try await Set(database.client.query("SELECT stream_id, notes, total, last_text FROM note_counts")
                .decode((String, Int64, Int64, String).self)
                .reduce(into: []) { $0.append(NoteCount(streamID: $1.0, notes: $1.1, total: $1.2, lastText: $1.3)) })
        }
    }
}
