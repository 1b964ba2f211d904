import Foundation

/// A store of either backend behind one concrete type, for generic code (``AggregateRepository``, ``Relay``,
/// ``ProjectionRunner``) in services that choose the backend by configuration.
public struct AnyEventStore: EventStore, SnapshotStore {
    public let base: any EventStore & SnapshotStore

    public init(_ base: any EventStore & SnapshotStore) {
        self.base = base
    }

    public func append(_ events: [NewEvent], to streamID: String, expectedVersion: ExpectedVersion) async throws -> AppendResult {
        try await base.append(events, to: streamID, expectedVersion: expectedVersion)
    }

    public func readStream(_ streamID: String, fromVersion: Int64, limit: Int) async throws -> [EventEnvelope] {
        try await base.readStream(streamID, fromVersion: fromVersion, limit: limit)
    }

    public func readAll(after position: Int64, limit: Int) async throws -> [EventEnvelope] {
        try await base.readAll(after: position, limit: limit)
    }

    public func readAll(after position: Int64, limit: Int, types: Set<String>) async throws -> TypedPage {
        try await base.readAll(after: position, limit: limit, types: types)
    }

    public func headPosition() async throws -> Int64 { try await base.headPosition() }

    public func streamVersion(_ streamID: String) async throws -> Int64 { try await base.streamVersion(streamID) }

    public func waitForAppends(after position: Int64, timeout: Duration) async {
        await base.waitForAppends(after: position, timeout: timeout)
    }

    public func waitForAppends(after position: Int64, types: Set<String>, timeout: Duration) async {
        await base.waitForAppends(after: position, types: types, timeout: timeout)
    }

    public func waitForAppends(after position: Int64, types: Set<String>, where wakes: @escaping @Sendable (EventEnvelope) -> Bool,
                               timeout: Duration) async {
        await base.waitForAppends(after: position, types: types, where: wakes, timeout: timeout)
    }

    public func saveSnapshot(_ snapshot: Snapshot) async throws { try await base.saveSnapshot(snapshot) }

    public func loadSnapshot(of streamID: String) async throws -> Snapshot? { try await base.loadSnapshot(of: streamID) }
}
