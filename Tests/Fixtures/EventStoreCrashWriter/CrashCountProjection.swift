import EventSourcing
import GRDB
import PostgresNIO

/// Counts events per stream; the crash test compares it with the log after a SIGKILL.
struct CrashCountProjection: SQLiteProjection, PostgresProjection {
    let name = "crash_counts"
    let tables = ["crash_counts"]

    func createTables(_ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: "CREATE TABLE \(t("crash_counts")) (stream_id TEXT PRIMARY KEY, events INTEGER NOT NULL)")
    }

    func apply(_ event: EventEnvelope, _ db: Database, _ t: ProjectionTables) throws {
        try db.execute(sql: """
            INSERT INTO \(t("crash_counts")) (stream_id, events) VALUES (?, 1)
            ON CONFLICT (stream_id) DO UPDATE SET events = events + 1
            """, arguments: [event.streamID])
    }

    func createTables(_ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(t("crash_counts")) (stream_id text PRIMARY KEY, events bigint NOT NULL)"),
                                   logger: connection.logger)
    }

    func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ t: ProjectionTables) async throws {
        var query = PostgresQuery(unsafeSQL: """
            INSERT INTO \(t("crash_counts")) (stream_id, events) VALUES ($1, 1)
            ON CONFLICT (stream_id) DO UPDATE SET events = \(t("crash_counts")).events + 1
            """)
        query.binds.append(event.streamID)
        try await connection.query(query, logger: connection.logger)
    }
}
