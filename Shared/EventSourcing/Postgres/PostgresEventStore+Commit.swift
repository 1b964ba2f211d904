import Foundation
import Logging
import NIOCore
import PostgresNIO

extension PostgresEventStore {
    /// Plans and writes one group commit inside an open transaction: four round trips (`BEGIN`, lock and read,
    /// insert, `COMMIT`) whatever the batch size.
    static func commit(_ requests: [AppendRequest], on connection: PostgresConnection, logger: Logger) async throws -> AppendPlanner.Plan {
        let streams = Array(Set(requests.map(\.streamID)))
        let ids = requests.flatMap { $0.events.map(\.eventID) }
        var head: Int64 = 0
        var versions: [String: Int64] = [:]
        var stored: [UUID: AppendPlanner.StoredEvent] = [:]
        // es_lock_for_append takes the es_head row lock (held to commit), then reads the streams' versions and the
        // already stored ids with fresh snapshots, so it sees every append committed before the lock was granted.
        let rows = try await connection.query(
            "SELECT * FROM es_lock_for_append(\(streams)::text[], \(ids)::uuid[])", logger: logger)
        for try await (kind, stream, version, position, id, type, schemaVersion, payload) in rows.decode(
            (Int32, String?, Int64?, Int64?, UUID?, String?, Int32?, ByteBuffer?).self) {
            switch kind {
            case 0:
                head = position ?? 0
            case 1:
                if let stream, let version { versions[stream] = version }
            default:
                guard let id, let stream, let version, let position, let type, let schemaVersion, let payload else { continue }
                stored[id] = AppendPlanner.StoredEvent(
                    eventID: id, streamID: stream, streamVersion: version, position: position,
                    eventType: type, schemaVersion: Int(schemaVersion), payload: Data(buffer: payload))
            }
        }
        let plan = AppendPlanner.plan(requests, head: head, streamVersions: versions, storedEvents: stored,
                                      recordedAt: Date().roundedToMicroseconds)
        guard !plan.rows.isEmpty else { return plan }
        try await insert(plan.rows, newHead: plan.newHead, on: connection, logger: logger)
        return plan
    }

    /// One statement: a multi-row insert through `unnest` of column arrays, and the move of `es_head` to `newHead`.
    private static func insert(_ rows: [EventEnvelope], newHead: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        let c = RowColumns(rows)
        try await connection.query("""
            WITH inserted AS (
            INSERT INTO es_events (\(unescaped: columns))
            SELECT p, e, s, v, t, sv, pl, NULLIF(c, '')::uuid, NULLIF(ca, '')::uuid, NULLIF(a, ''), NULLIF(tp, ''), r
            FROM unnest(\(c.positions)::int8[], \(c.eventIDs)::uuid[], \(c.streams)::text[], \(c.versions)::int8[], \(c.types)::text[],
                        \(c.schemaVersions)::int4[], \(c.payloads)::bytea[], \(c.correlations)::text[], \(c.causations)::text[],
                        \(c.actors)::text[], \(c.traces)::text[], \(c.recorded)::timestamptz[])
                 AS u(p, e, s, v, t, sv, pl, c, ca, a, tp, r)
            )
            UPDATE es_head SET position = \(newHead) WHERE id = 1
            """, logger: logger)
    }
}

/// Rows to insert as one array per `es_events` column, in ``PostgresEventStore/columns`` order; optional columns as
/// text with '' for absent.
struct RowColumns {
    var positions: [Int64], eventIDs: [UUID], streams: [String], versions: [Int64], types: [String]
    var schemaVersions: [Int32], payloads: [ByteBuffer], correlations: [String], causations: [String], actors: [String]
    var traces: [String], recorded: [Date]

    init(_ rows: [EventEnvelope]) {
        positions = rows.map(\.position)
        eventIDs = rows.map(\.eventID)
        streams = rows.map(\.streamID)
        versions = rows.map(\.streamVersion)
        types = rows.map(\.eventType)
        schemaVersions = rows.map { Int32($0.schemaVersion) }
        payloads = rows.map { ByteBuffer(data: $0.payload) }
        correlations = rows.map { $0.metadata.correlationID?.uuidString ?? "" }
        causations = rows.map { $0.metadata.causationID?.uuidString ?? "" }
        actors = rows.map { $0.metadata.actorID ?? "" }
        traces = rows.map { $0.metadata.traceparent ?? "" }
        recorded = rows.map(\.recordedAt)
    }
}
