import EventSourcing
import Foundation
import GRDB
import PostgresNIO

/// The payload of the benchmark's only event type.
struct BenchEntryRecorded: EventPayload {
    static let eventType = "BenchEntryRecorded"
    /// A number the projection sums per stream.
    var amount: Int
    /// Filler text, so payloads are the size of a typical service event.
    var note: String
}

/// The benchmark's tolerant reader, as a service's projection would decode its events.
enum BenchEvents {
    static let types = EventTypeMap<BenchEntryRecorded>().registering(BenchEntryRecorded.self) { $0 }
}

/// Per stream: how many events and the sum of their amounts, upserted per event.
struct SQLiteStreamTotalsProjection: SQLiteProjection {
    let name = "bench_stream_totals"
    let tables = ["bench_stream_totals"]

    func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            CREATE TABLE \(t("bench_stream_totals")) (
                stream_id TEXT PRIMARY KEY, events INTEGER NOT NULL, amount_total INTEGER NOT NULL)
            """)
    }

    func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        guard let entry = try BenchEvents.types.decode(event) else { return }
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO \(t("bench_stream_totals")) (stream_id, events, amount_total) VALUES (?, 1, ?)
            ON CONFLICT (stream_id) DO UPDATE SET events = events + 1, amount_total = amount_total + excluded.amount_total
            """)
        try upsert.execute(arguments: [event.streamID, entry.amount])
    }

    /// Events counted by the live table, to check that the rebuild saw the whole log.
    static func countedEvents(_ database: SQLiteServiceDatabase) async throws -> Int {
        try await database.read { db in try Int.fetchOne(db, sql: "SELECT SUM(events) FROM bench_stream_totals") ?? 0 }
    }
}

/// The same read model on PostgreSQL.
struct PostgresStreamTotalsProjection: PostgresProjection {
    let name = "bench_stream_totals"
    let tables = ["bench_stream_totals"]

    func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: """
            CREATE TABLE \(t("bench_stream_totals")) (
                stream_id text PRIMARY KEY, events bigint NOT NULL, amount_total bigint NOT NULL)
            """), logger: connection.logger)
    }

    func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        guard let entry = try BenchEvents.types.decode(event) else { return }
        let table = t("bench_stream_totals")
        var upsert = PostgresQuery(unsafeSQL: """
            INSERT INTO \(table) (stream_id, events, amount_total) VALUES ($1, 1, $2)
            ON CONFLICT (stream_id) DO UPDATE SET events = \(table).events + 1,
                amount_total = \(table).amount_total + excluded.amount_total
            """)
        upsert.binds.append(event.streamID)
        upsert.binds.append(Int64(entry.amount))
        try await connection.query(upsert, logger: connection.logger)
    }

    /// Events counted by the live table, to check that the rebuild saw the whole log.
    static func countedEvents(_ database: PostgresServiceDatabase) async throws -> Int {
        let rows = try await database.client.query("SELECT SUM(events)::int8 FROM bench_stream_totals")
        for try await total in rows.decode(Int64?.self) { return Int(total ?? 0) }
        return 0
    }
}
