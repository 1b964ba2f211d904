import Foundation
import Logging
import NIOCore
import PostgresNIO

extension PostgresEventStore {
    /// Plans and writes one group commit inside an open transaction: five round trips whatever the batch size.
    static func commit(_ requests: [AppendRequest], on connection: PostgresConnection, logger: Logger) async throws -> AppendPlanner.Plan {
        var head: Int64 = 0
        for try await position in try await connection.query(
            "SELECT position FROM es_head WHERE id = 1 FOR UPDATE", logger: logger).decode(Int64.self) {
            head = position
        }
        let streams = Array(Set(requests.map(\.streamID)))
        var versions: [String: Int64] = [:]
        for try await (stream, version) in try await connection.query("""
            SELECT stream_id, MAX(stream_version) FROM es_events WHERE stream_id = ANY(\(streams)) GROUP BY stream_id
            """, logger: logger).decode((String, Int64).self) {
            versions[stream] = version
        }
        let ids = requests.flatMap { $0.events.map(\.eventID) }
        var stored: [UUID: AppendPlanner.StoredEvent] = [:]
        for try await (id, stream, version, position, type, schemaVersion, payload) in try await connection.query("""
            SELECT event_id, stream_id, stream_version, position, event_type, schema_version, payload
            FROM es_events WHERE event_id = ANY(\(ids))
            """, logger: logger).decode((UUID, String, Int64, Int64, String, Int32, ByteBuffer).self) {
            stored[id] = AppendPlanner.StoredEvent(
                eventID: id, streamID: stream, streamVersion: version, position: position,
                eventType: type, schemaVersion: Int(schemaVersion), payload: Data(buffer: payload))
        }
        let plan = AppendPlanner.plan(requests, head: head, streamVersions: versions, storedEvents: stored,
                                      recordedAt: Date().roundedToMicroseconds)
        guard !plan.rows.isEmpty else { return plan }
        try await insert(plan.rows, on: connection, logger: logger)
        try await connection.query("UPDATE es_head SET position = \(plan.newHead) WHERE id = 1", logger: logger)
        return plan
    }

    /// One multi-row insert through `unnest` of column arrays. Optional columns travel as text with '' for absent.
    private static func insert(_ rows: [EventEnvelope], on connection: PostgresConnection, logger: Logger) async throws {
        let positions = rows.map(\.position)
        let eventIDs = rows.map(\.eventID)
        let streams = rows.map(\.streamID)
        let versions = rows.map(\.streamVersion)
        let types = rows.map(\.eventType)
        let schemaVersions = rows.map { Int32($0.schemaVersion) }
        let payloads = rows.map { ByteBuffer(data: $0.payload) }
        let correlations = rows.map { $0.metadata.correlationID?.uuidString ?? "" }
        let causations = rows.map { $0.metadata.causationID?.uuidString ?? "" }
        let actors = rows.map { $0.metadata.actorID ?? "" }
        let traces = rows.map { $0.metadata.traceparent ?? "" }
        let recorded = rows.map(\.recordedAt)
        try await connection.query("""
            INSERT INTO es_events (\(unescaped: columns))
            SELECT p, e, s, v, t, sv, pl, NULLIF(c, '')::uuid, NULLIF(ca, '')::uuid, NULLIF(a, ''), NULLIF(tp, ''), r
            FROM unnest(\(positions)::int8[], \(eventIDs)::uuid[], \(streams)::text[], \(versions)::int8[], \(types)::text[],
                        \(schemaVersions)::int4[], \(payloads)::bytea[], \(correlations)::text[], \(causations)::text[],
                        \(actors)::text[], \(traces)::text[], \(recorded)::timestamptz[])
                 AS u(p, e, s, v, t, sv, pl, c, ca, a, tp, r)
            """, logger: logger)
    }
}
