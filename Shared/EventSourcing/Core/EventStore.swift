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

    /// Reads up to `limit` events of the given `types` after `position`, in order, passing over the others without
    /// returning them, through at most ``TypedPage/scanLimit`` positions; the page says how far it read.
    ///
    /// For readers that act on a few types of a busy log (a position update per fix): the events they pass over are
    /// neither copied nor decoded, and a reader resuming after ``TypedPage/scanned`` never reads them again.
    func readAll(after position: Int64, limit: Int, types: Set<String>) async throws -> TypedPage

    /// The highest committed global position (0 when empty).
    func headPosition() async throws -> Int64

    /// The current version of a stream (0 when it does not exist).
    func streamVersion(_ streamID: String) async throws -> Int64

    /// Suspends until an append past `position` may have committed, or until `timeout` passes.
    ///
    /// Appends made through this instance wake waiters at once; appends by other processes are noticed within
    /// the timeout because subscribers re-read the log after it.
    func waitForAppends(after position: Int64, timeout: Duration) async

    /// As ``waitForAppends(after:timeout:)``, for a reader of some event types only: an append of other types need not
    /// wake it (the default waits for any append).
    func waitForAppends(after position: Int64, types: Set<String>, timeout: Duration) async

    /// As ``waitForAppends(after:types:timeout:)``, for a reader that acts on few of the events of its types: an append
    /// wakes it only when `wakes` accepts one of its events of `types`, as stored (before upcasting). `wakes` must be
    /// quick and pure (it runs on the appending task, under the store's lock); a `false` for an event that matters only
    /// delays the reader until `timeout`. The default ignores `wakes`.
    func waitForAppends(after position: Int64, types: Set<String>, where wakes: @escaping @Sendable (EventEnvelope) -> Bool,
                        timeout: Duration) async
}

/// Events of some types read from the global log, and how far the read went.
public struct TypedPage: Sendable {
    /// The events of the asked types, in position order.
    public var events: [EventEnvelope]
    /// The last position read: every event after the read's `position` up to here that is not in ``events`` is of
    /// another type. At least the last event's position; equal to the read's `position` when nothing was committed
    /// after it.
    public var scanned: Int64

    /// The most positions one read passes through (a bound on the work of a read that finds nothing).
    public static let scanLimit = 10_000

    public init(events: [EventEnvelope], scanned: Int64) {
        self.events = events
        self.scanned = scanned
    }
}

extension EventStore {
    /// Reads pages of the whole log and keeps the events of `types`: correct for any store; the SQLite store answers
    /// with one query that returns only those events.
    public func readAll(after position: Int64, limit: Int, types: Set<String>) async throws -> TypedPage {
        try await readAll(after: position, limit: limit, where: { types.contains($0.eventType) })
    }

    /// Reads pages of the whole log and keeps up to `limit` events that `keep` accepts, passing over at most
    /// ``TypedPage/scanLimit`` others; the page says how far it read (the last event kept when the page is full).
    public func readAll(after position: Int64, limit: Int, where keep: (EventEnvelope) -> Bool) async throws -> TypedPage {
        var kept: [EventEnvelope] = []
        var scanned = position
        var skipped = 0
        while kept.count < limit, skipped < TypedPage.scanLimit {
            let page = try await readAll(after: scanned, limit: min(max(limit, 100), TypedPage.scanLimit - skipped))
            guard let last = page.last else { break }
            scanned = last.position
            for event in page {
                if keep(event) {
                    kept.append(event)
                    if kept.count == limit {
                        scanned = event.position
                        break
                    }
                } else {
                    skipped += 1
                }
            }
        }
        return TypedPage(events: kept, scanned: scanned)
    }

    public func waitForAppends(after position: Int64, types: Set<String>, timeout: Duration) async {
        await waitForAppends(after: position, timeout: timeout)
    }

    public func waitForAppends(after position: Int64, types: Set<String>, where wakes: @escaping @Sendable (EventEnvelope) -> Bool,
                               timeout: Duration) async {
        await waitForAppends(after: position, types: types, timeout: timeout)
    }

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
