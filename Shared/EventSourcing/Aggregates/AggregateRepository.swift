import Foundation

/// Loads aggregates by replaying their stream (from a snapshot when enabled), runs commands, and appends the result
/// with optimistic concurrency.
public struct AggregateRepository<A: Aggregate, Store: EventStore & SnapshotStore>: Sendable {
    /// The event store.
    public let store: Store
    /// Take a snapshot when at least this many events were replayed since the last one; `nil` (default) disables them.
    public let snapshotEvery: Int?

    /// Creates a repository.
    public init(store: Store, snapshotEvery: Int? = nil) {
        self.store = store
        self.snapshotEvery = snapshotEvery
    }

    /// A loaded aggregate: its state and the stream version it reflects.
    public struct Loaded: Sendable {
        /// The folded state.
        public var state: A.State
        /// The stream version `state` includes (0 for a new stream).
        public var version: Int64
        /// Events replayed from the log (after the snapshot, if one was used).
        public var replayed: Int
    }

    /// The outcome of a command.
    public struct Outcome: Sendable {
        /// State after the new events.
        public var state: A.State
        /// The events the command caused (possibly none).
        public var events: [A.Event]
        /// The append's result, `nil` when the command caused no events.
        public var append: AppendResult?
    }

    /// Loads the current state of `streamID`.
    public func load(_ streamID: String) async throws -> Loaded {
        var loaded = Loaded(state: A.initialState, version: 0, replayed: 0)
        if snapshotEvery != nil, let snapshot = try await store.loadSnapshot(of: streamID), snapshot.stateVersion == A.stateVersion {
            loaded.state = try EventJSON.decode(A.State.self, from: snapshot.state)
            loaded.version = snapshot.streamVersion
        }
        for envelope in try await store.readStream(streamID, fromVersion: loaded.version + 1) {
            if let event = try A.eventTypes.decode(envelope) {
                loaded.state = A.apply(loaded.state, event)
            }
            loaded.version = envelope.streamVersion
            loaded.replayed += 1
        }
        if let every = snapshotEvery, loaded.replayed >= every {
            try await store.saveSnapshot(Snapshot(streamID: streamID, streamVersion: loaded.version, stateVersion: A.stateVersion,
                                                  state: try EventJSON.encode(loaded.state)))
        }
        return loaded
    }

    /// Loads, decides and appends at the loaded version.
    ///
    /// - Parameters:
    ///   - retries: how often to reload and decide again after a version conflict; 0 (default) surfaces the conflict
    ///     (use it when the caller sent an `If-Match` version); commands that stay valid against newer state may retry.
    ///   - metadata: carried by every new event.
    @discardableResult
    public func execute(_ command: A.Command, on streamID: String, metadata: EventMetadata = .init(), retries: Int = 0) async throws -> Outcome {
        var attempt = 0
        while true {
            let loaded = try await load(streamID)
            let events = try A.decide(command, loaded.state)
            guard !events.isEmpty else { return Outcome(state: loaded.state, events: [], append: nil) }
            let newEvents = try events.map { try A.payload(of: $0).newEvent(metadata: metadata) }
            do {
                let result = try await store.append(newEvents, to: streamID, expectedVersion: .exact(loaded.version))
                return Outcome(state: events.reduce(loaded.state, A.apply), events: events, append: result)
            } catch EventStoreError.wrongExpectedVersion where attempt < retries {
                attempt += 1
            }
        }
    }
}
