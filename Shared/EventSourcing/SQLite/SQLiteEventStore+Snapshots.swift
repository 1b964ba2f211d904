import Foundation
import GRDB

extension SQLiteEventStore {
    public func saveSnapshot(_ snapshot: Snapshot) async throws {
        try await database.write { db in
            try db.execute(sql: """
                INSERT INTO es_snapshots (stream_id, stream_version, state_version, state, taken_at_us) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (stream_id) DO UPDATE SET stream_version = excluded.stream_version,
                    state_version = excluded.state_version, state = excluded.state, taken_at_us = excluded.taken_at_us
                WHERE excluded.stream_version >= es_snapshots.stream_version
                """, arguments: [snapshot.streamID, snapshot.streamVersion, snapshot.stateVersion, snapshot.state,
                                 Date().microsecondsSince1970])
        }
    }

    public func loadSnapshot(of streamID: String) async throws -> Snapshot? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT stream_version, state_version, state FROM es_snapshots WHERE stream_id = ?",
                             arguments: [streamID]).map {
                Snapshot(streamID: streamID, streamVersion: $0[0], stateVersion: $0[1], state: $0[2])
            }
        }
    }
}
