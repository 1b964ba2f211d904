import EventSourcing
import Foundation
import GRDB
import Messaging
import ServiceTesting

/// A consumer read model that counts how often each event was applied: exactly-once shows as `applied = 1` everywhere.
struct SeenHandler: SQLiteEventHandler {
    var name = "seen"

    func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS seen (event_id TEXT PRIMARY KEY, stream_id TEXT NOT NULL, applied INTEGER NOT NULL)
            """)
    }

    func handle(_ event: PublishedEvent, _ db: Database) throws {
        guard event.eventType == "NoteAdded" else { return }
        _ = try event.decode([String: String].self)
        try db.execute(sql: """
            INSERT INTO seen (event_id, stream_id, applied) VALUES (?, ?, 1)
            ON CONFLICT (event_id) DO UPDATE SET applied = applied + 1
            """, arguments: [event.eventID.uuidString, event.streamID])
    }

    /// (distinct events applied, most times any one was applied).
    static func tally(_ database: SQLiteServiceDatabase) async throws -> (events: Int, maxApplied: Int) {
        try await database.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(MAX(applied), 0) FROM seen")!
            return (row[0], row[1])
        }
    }
}

extension TemporaryDirectory {
    /// A SQLite service database named `name` in this directory.
    func database(_ name: String) throws -> SQLiteServiceDatabase {
        try SQLiteServiceDatabase(path: url.appendingPathComponent("\(name).sqlite").path)
    }
}

/// Appends `count` NoteAdded events over a few streams.
func appendNotes(_ store: some EventStore, count: Int, from start: Int = 0) async throws {
    for index in start..<(start + count) {
        try await store.append(try NewEvent(eventType: "NoteAdded", encoding: ["text": "n\(index)"]),
                               to: "note-\(index % 13)", expectedVersion: .any)
    }
}
