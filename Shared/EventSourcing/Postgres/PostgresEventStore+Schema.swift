import Foundation
import NIOCore
import PostgresNIO

extension PostgresEventStore {
    /// Version of the log's table layout, recorded in `es_schema`.
    static let schemaVersion = 1

    static let columns = """
        position, event_id, stream_id, stream_version, event_type, schema_version, payload,
        correlation_id, causation_id, actor_id, traceparent, recorded_at
        """

    static func migrate(_ database: PostgresServiceDatabase) async throws {
        try await database.transaction { connection in
            // Several service instances may start at once; one migrates, the others wait and find it done.
            try await connection.query("SELECT pg_advisory_xact_lock(7300001)", logger: database.logger)
            for statement in ddl {
                try await connection.query("\(unescaped: statement)", logger: database.logger)
            }
            let rows = try await connection.query(
                "SELECT version FROM es_schema WHERE component = 'event-log'", logger: database.logger)
            for try await stored in rows.decode(Int.self) where stored > schemaVersion {
                throw EventStoreError.incompatibleSchema("event log schema \(stored) is newer than \(schemaVersion)")
            }
            try await connection.query("""
                INSERT INTO es_schema (component, version) VALUES ('event-log', \(schemaVersion))
                ON CONFLICT (component) DO UPDATE SET version = excluded.version
                """, logger: database.logger)
        }
    }

    private static let ddl = [
        "CREATE TABLE IF NOT EXISTS es_schema (component text PRIMARY KEY, version int NOT NULL)",
        "CREATE TABLE IF NOT EXISTS es_head (id int PRIMARY KEY CHECK (id = 1), position bigint NOT NULL)",
        "INSERT INTO es_head (id, position) SELECT 1, 0 WHERE NOT EXISTS (SELECT 1 FROM es_head)",
        """
        CREATE TABLE IF NOT EXISTS es_events (
            position        bigint      PRIMARY KEY,
            event_id        uuid        NOT NULL UNIQUE,
            stream_id       text        NOT NULL,
            stream_version  bigint      NOT NULL,
            event_type      text        NOT NULL,
            schema_version  int         NOT NULL,
            payload         bytea       NOT NULL,
            correlation_id  uuid,
            causation_id    uuid,
            actor_id        text,
            traceparent     text,
            recorded_at     timestamptz NOT NULL,
            UNIQUE (stream_id, stream_version)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS es_snapshots (
            stream_id       text        PRIMARY KEY,
            stream_version  bigint      NOT NULL,
            state_version   int         NOT NULL,
            state           bytea       NOT NULL,
            taken_at        timestamptz NOT NULL
        )
        """,
        // The first step of an append (see PostgresEventStore.commit): lock the head, then read with fresh snapshots.
        // Kind 0 is the head, 1 a stream's current version, 2 an already stored event among p_ids.
        """
        CREATE OR REPLACE FUNCTION es_lock_for_append(p_streams text[], p_ids uuid[])
        RETURNS TABLE (kind int, stream_id text, stream_version bigint, "position" bigint, event_id uuid,
                       event_type text, schema_version int, payload bytea)
        LANGUAGE plpgsql VOLATILE
        -- Plan each call with its arrays: a cached generic plan may scan the whole log for a 100-id array.
        SET plan_cache_mode = force_custom_plan
        AS $fn$
        BEGIN
            RETURN QUERY SELECT 0, NULL::text, NULL::bigint, h.position, NULL::uuid, NULL::text, NULL::int, NULL::bytea
                FROM es_head h WHERE h.id = 1 FOR UPDATE;
            RETURN QUERY SELECT 1, s.id, v.version, NULL::bigint, NULL::uuid, NULL::text, NULL::int, NULL::bytea
                FROM unnest(p_streams) AS s(id)
                CROSS JOIN LATERAL (SELECT MAX(e.stream_version) AS version FROM es_events e WHERE e.stream_id = s.id) AS v
                WHERE v.version IS NOT NULL;
            RETURN QUERY SELECT 2, e.stream_id, e.stream_version, e.position, e.event_id, e.event_type, e.schema_version,
                                e.payload
                FROM es_events e WHERE e.event_id = ANY(p_ids);
        END
        $fn$
        """,
        // The one-statement append (see PostgresEventStore.commitPlanned): the writer planned the group against the
        // head and stream versions it last saw; this writes the rows only if those still hold. The streams are checked
        // first, then the head is moved by an UPDATE conditioned on the planned head, which takes the head's row lock
        // (held to commit) — no separate `SELECT … FOR UPDATE`, whose lock record cost a WAL record per append (2–5 %
        // of a single writer's appends, measured with pgbench on this function). Checking the streams before the lock
        // is sound because every append moves the head: a writer that committed after the check moved it past the
        // planned head, and the UPDATE (re-evaluated on the newest row version after waiting for the lock) finds
        // nothing to move. -1: written; -2: a stream's version is not the one planned against; otherwise the head
        // moved, and this is where it is now (the writer may plan again against it). An event id already
        // stored fails the insert on its unique index (SQLSTATE 23505) and writes nothing. Generic plans are fine:
        // every statement is an index probe per array element or an insert of the arrays' rows.
        """
        CREATE OR REPLACE FUNCTION es_append_planned(
            p_head bigint, p_new_head bigint, p_streams text[], p_versions bigint[],
            p_positions bigint[], p_ids uuid[], p_row_streams text[], p_row_versions bigint[], p_types text[],
            p_schema_versions int[], p_payloads bytea[], p_correlations text[], p_causations text[], p_actors text[],
            p_traces text[], p_recorded timestamptz[])
        RETURNS bigint
        LANGUAGE plpgsql VOLATILE
        AS $fn$
        DECLARE
            v_head bigint;
        BEGIN
            IF EXISTS (SELECT 1 FROM unnest(p_streams, p_versions) AS s(id, version)
                       WHERE COALESCE((SELECT MAX(e.stream_version) FROM es_events e WHERE e.stream_id = s.id), 0)
                             <> s.version) THEN
                RETURN -2;
            END IF;
            UPDATE es_head SET position = p_new_head WHERE id = 1 AND position = p_head;
            IF NOT FOUND THEN
                SELECT h.position INTO v_head FROM es_head h WHERE h.id = 1;
                RETURN v_head;
            END IF;
            INSERT INTO es_events (position, event_id, stream_id, stream_version, event_type, schema_version, payload,
                                   correlation_id, causation_id, actor_id, traceparent, recorded_at)
            SELECT p, e, s, v, t, sv, pl, NULLIF(c, '')::uuid, NULLIF(ca, '')::uuid, NULLIF(a, ''), NULLIF(tp, ''), r
            FROM unnest(p_positions, p_ids, p_row_streams, p_row_versions, p_types, p_schema_versions, p_payloads,
                        p_correlations, p_causations, p_actors, p_traces, p_recorded)
                 AS u(p, e, s, v, t, sv, pl, c, ca, a, tp, r);
            RETURN -1;
        END
        $fn$
        """,
        // For operators: the log with readable JSON payloads.
        """
        CREATE OR REPLACE VIEW es_events_json AS
        SELECT position, event_id, stream_id, stream_version, event_type, schema_version,
               convert_from(payload, 'UTF8')::jsonb AS payload, correlation_id, causation_id, actor_id, traceparent, recorded_at
        FROM es_events
        """,
    ]

    /// Decodes a row of ``columns``, cell by cell: PostgresNIO's tuple decode resolves generic metadata at run time
    /// for every row, which made it the largest cost of catching up.
    static func envelope(_ row: PostgresRow) throws -> EventEnvelope {
        var cells = row.makeIterator()
        func next<T: PostgresDecodable>(_ type: T.Type) throws -> T {
            guard let cell = cells.next() else { throw EventStoreError.incompatibleSchema("an es_events row has fewer columns than expected") }
            return try cell.decode(T.self)
        }
        let position = try next(Int64.self)
        let eventID = try next(UUID.self)
        let streamID = try next(String.self)
        let streamVersion = try next(Int64.self)
        let eventType = try next(String.self)
        let schemaVersion = try next(Int32.self)
        let payload = try next(ByteBuffer.self)
        let correlationID = try next(UUID?.self)
        let causationID = try next(UUID?.self)
        let actorID = try next(String?.self)
        let traceparent = try next(String?.self)
        let recordedAt = try next(Date.self)
        return EventEnvelope(
            eventID: eventID, streamID: streamID, streamVersion: streamVersion, position: position, eventType: eventType,
            schemaVersion: Int(schemaVersion), payload: Data(buffer: payload),
            metadata: EventMetadata(correlationID: correlationID, causationID: causationID, actorID: actorID, traceparent: traceparent),
            recordedAt: recordedAt.roundedToMicroseconds)
    }
}
