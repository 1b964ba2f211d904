/// One caller's append, as queued for group commit.
public struct AppendRequest: Sendable {
    /// Target stream.
    public var streamID: String
    /// Concurrency condition.
    public var expectedVersion: ExpectedVersion
    /// Events to append, in order.
    public var events: [NewEvent]

    /// Creates a request.
    public init(streamID: String, expectedVersion: ExpectedVersion, events: [NewEvent]) {
        self.streamID = streamID
        self.expectedVersion = expectedVersion
        self.events = events
    }

    /// Rejects malformed appends before they reach a transaction.
    func validate() throws {
        guard !streamID.isEmpty, streamID.utf8.count <= 256 else {
            throw EventStoreError.invalidAppend("stream id must be 1–256 bytes")
        }
        guard !events.isEmpty else { throw EventStoreError.invalidAppend("no events") }
        if case .exact(let version) = expectedVersion, version < 0 {
            throw EventStoreError.invalidAppend("expected version must not be negative")
        }
        var seen = Set<UUID>()
        for event in events {
            guard seen.insert(event.eventID).inserted else {
                throw EventStoreError.invalidAppend("event id \(event.eventID) appears twice in one append")
            }
            guard !event.eventType.isEmpty else { throw EventStoreError.invalidAppend("empty event type") }
        }
    }
}

import Foundation
