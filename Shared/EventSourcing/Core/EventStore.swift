import Foundation

/// An append-only event log with per-stream optimistic concurrency and a gapless global order.
///
/// Both stores (SQLite and PostgreSQL) pass one conformance suite, so services depend on this protocol only.
public protocol EventStore: Sendable {
    /// Appends `events` to `streamID` atomically if the stream's version satisfies `expectedVersion`.
    ///
    /// Retrying with the same event ids at the same expected version returns the original result;
    /// reusing an id with different content throws ``EventStoreError/duplicateEventID(_:streamID:)``.
    func append(_ events: [NewEvent], to streamID: String, expectedVersion: ExpectedVersion) async throws -> AppendResult

    /// Reads up to `limit` events of one stream, starting at stream version `fromVersion` (1-based), in order.
    func readStream(_ streamID: String, fromVersion: Int64, limit: Int) async throws -> [EventEnvelope]

    /// Reads up to `limit` events of all streams with a global position greater than `position`, in order.
    func readAll(after position: Int64, limit: Int) async throws -> [EventEnvelope]

    /// The highest committed global position (0 when empty).
    func headPosition() async throws -> Int64

    /// The current version of a stream (0 when it does not exist).
    func streamVersion(_ streamID: String) async throws -> Int64

    /// Suspends until an append past `position` may have committed, or until `timeout` passes.
    ///
    /// Appends made through this instance wake waiters at once; appends by other processes are noticed within
    /// the timeout because subscribers re-read the log after it.
    func waitForAppends(after position: Int64, timeout: Duration) async
}

extension EventStore {
    /// Appends one event.
    @discardableResult
    public func append(_ event: NewEvent, to streamID: String, expectedVersion: ExpectedVersion) async throws -> AppendResult {
        try await append([event], to: streamID, expectedVersion: expectedVersion)
    }

    /// Reads a whole stream from version 1 (or from `fromVersion`), in pages.
    public func readStream(_ streamID: String, fromVersion: Int64 = 1) async throws -> [EventEnvelope] {
        var events: [EventEnvelope] = []
        var next = fromVersion
        while true {
            let page = try await readStream(streamID, fromVersion: next, limit: 1_000)
            events += page
            guard page.count == 1_000, let last = page.last else { return events }
            next = last.streamVersion + 1
        }
    }
}
