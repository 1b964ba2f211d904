import Foundation
import GRDB

extension SQLiteEventStore {
    /// Plans and writes one group commit inside an open `BEGIN IMMEDIATE` transaction.
    static func commit(_ requests: [AppendRequest], in db: Database) throws -> AppendPlanner.Plan {
        let streams = Set(requests.map(\.streamID))
        var versions: [String: Int64] = [:]
        for stream in streams {
            versions[stream] = try streamVersion(stream, db)
        }
        let plan = AppendPlanner.plan(
            requests, head: try head(db), streamVersions: versions,
            storedEvents: try storedEvents(requests.flatMap { $0.events.map(\.eventID) }, db),
            recordedAt: Date().roundedToMicroseconds)
        let insert = try db.cachedStatement(sql: """
            INSERT INTO es_events (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for row in plan.rows {
            try insert.execute(arguments: [
                row.position, row.eventID, row.streamID, row.streamVersion, row.eventType, row.schemaVersion, row.payload,
                row.metadata.correlationID, row.metadata.causationID, row.metadata.actorID, row.metadata.traceparent,
                row.recordedAt.microsecondsSince1970,
            ])
        }
        return plan
    }

    /// Already stored events among `ids`, found with one `IN (…)` query per 500 ids.
    private static func storedEvents(_ ids: [UUID], _ db: Database) throws -> [UUID: AppendPlanner.StoredEvent] {
        var found: [UUID: AppendPlanner.StoredEvent] = [:]
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + 500, ids.count)]
            start += chunk.count
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let sql = """
                SELECT event_id, stream_id, stream_version, position, event_type, schema_version, payload
                FROM es_events WHERE event_id IN (\(placeholders))
                """
            // Groups of a few events (nearly every append) reuse the writer's compiled statement for their count.
            let statement = chunk.count <= 16 ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
            let rows = try Row.fetchCursor(statement, arguments: StatementArguments(chunk.map(\.databaseValue)))
            while let row = try rows.next() {
                let event = AppendPlanner.StoredEvent(
                    eventID: row[0], streamID: row[1], streamVersion: row[2], position: row[3],
                    eventType: row[4], schemaVersion: row[5], payload: row[6])
                found[event.eventID] = event
            }
        }
        return found
    }
}
