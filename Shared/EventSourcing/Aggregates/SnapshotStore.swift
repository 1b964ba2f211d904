import Foundation

/// A saved aggregate state at a stream version, so loading a long stream replays only the tail.
public struct Snapshot: Sendable, Hashable {
    /// The stream the state was built from.
    public var streamID: String
    /// The stream version the state includes.
    public var streamVersion: Int64
    /// Version of the state's encoding; a snapshot with another version is ignored (the stream is replayed).
    public var stateVersion: Int
    /// The encoded state (JSON).
    public var state: Data

    /// Creates a snapshot.
    public init(streamID: String, streamVersion: Int64, stateVersion: Int, state: Data) {
        self.streamID = streamID
        self.streamVersion = streamVersion
        self.stateVersion = stateVersion
        self.state = state
    }
}

/// Keeps the latest snapshot per stream. Snapshots are a cache: deleting them all is always safe.
public protocol SnapshotStore: Sendable {
    /// Saves (replacing) the snapshot of its stream, unless a newer one is stored.
    func saveSnapshot(_ snapshot: Snapshot) async throws
    /// The latest snapshot of a stream, if any.
    func loadSnapshot(of streamID: String) async throws -> Snapshot?
}
