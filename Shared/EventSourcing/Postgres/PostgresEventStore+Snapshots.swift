import Foundation
import NIOCore
import PostgresNIO

extension PostgresEventStore {
    public func saveSnapshot(_ snapshot: Snapshot) async throws {
        try await database.client.query("""
            INSERT INTO es_snapshots (stream_id, stream_version, state_version, state, taken_at)
            VALUES (\(snapshot.streamID), \(snapshot.streamVersion), \(Int32(snapshot.stateVersion)), \(ByteBuffer(data: snapshot.state)), now())
            ON CONFLICT (stream_id) DO UPDATE SET stream_version = excluded.stream_version,
                state_version = excluded.state_version, state = excluded.state, taken_at = excluded.taken_at
            WHERE excluded.stream_version >= es_snapshots.stream_version
            """, logger: database.logger)
    }

    public func loadSnapshot(of streamID: String) async throws -> Snapshot? {
        let rows = try await database.client.query(
            "SELECT stream_version, state_version, state FROM es_snapshots WHERE stream_id = \(streamID)", logger: database.logger)
        for try await (version, stateVersion, state) in rows.decode((Int64, Int32, ByteBuffer).self) {
            return Snapshot(streamID: streamID, streamVersion: version, stateVersion: Int(stateVersion), state: Data(buffer: state))
        }
        return nil
    }
}
