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
    ///   - retries: how often to reload and decide again after a conflict (``EventStoreError/isConcurrentChange``);
    ///     0 (default) surfaces the conflict (use it when the caller sent an `If-Match` version); commands that stay valid
    ///     against newer state may retry. After the last retry the conflict is rethrown.
    ///   - metadata: carried by every new event.
    @discardableResult
    public func execute(_ command: A.Command, on streamID: String, metadata: EventMetadata = .init(), retries: Int = 0) async throws -> Outcome {
        try await retrying(retries) {
            let loaded = try await load(streamID)
            let events = try A.decide(command, loaded.state)
            let result = try await append(events, to: streamID, at: loaded.version, metadata: metadata)
            return Outcome(state: events.reduce(loaded.state, A.apply), events: events, append: result)
        }
    }

    /// Loads, lets `decide` choose the events and the answer from the loaded state, and appends the events at the loaded
    /// version; on a conflict it loads and decides again, up to `retries` times, then rethrows the conflict.
    ///
    /// For commands that answer with something computed from the state (a replayed request's earlier result), or that
    /// must ask another system between deciding that they may proceed and what they record (a payment provider's
    /// checkout): keep the rules in the aggregate's pure functions and call them from `decide`. `decide` runs once per
    /// attempt; no events means nothing is appended.
    public func execute<Answer>(on streamID: String, metadata: EventMetadata = .init(), retries: Int = 0,
                                deciding decide: (Loaded) async throws -> (events: [A.Event], answer: Answer)) async throws -> Answer {
        try await retrying(retries) {
            let loaded = try await load(streamID)
            let (events, answer) = try await decide(loaded)
            try await append(events, to: streamID, at: loaded.version, metadata: metadata)
            return answer
        }
    }

    /// Appends `events` at stream version `version` (0: the stream must not exist), each with the id the aggregate fixes
    /// or a fresh one; `nil` when there are no events.
    @discardableResult
    func append(_ events: [A.Event], to streamID: String, at version: Int64, metadata: EventMetadata) async throws -> AppendResult? {
        guard !events.isEmpty else { return nil }
        let newEvents = try events.map { try A.payload(of: $0).newEvent(id: A.eventID(of: $0) ?? .v7(), metadata: metadata) }
        return try await store.append(newEvents, to: streamID, expectedVersion: .exact(version))
    }

    /// Runs `attempt` again after a conflict, at most `retries` times.
    private func retrying<T>(_ retries: Int, _ attempt: () async throws -> T) async throws -> T {
        var retried = 0
        while true {
            do {
                return try await attempt()
            } catch let error as EventStoreError where error.isConcurrentChange && retried < retries {
                retried += 1
            }
        }
    }
}

extension EventStoreError {
    /// Whether another writer changed the stream between load and append: its version moved on
    /// (``wrongExpectedVersion(streamID:expected:actual:)``), or an event id the domain fixed (``Aggregate/eventID(of:)``)
    /// was appended by a concurrent same-key command (``duplicateEventID(_:streamID:)``). Deciding again on the new
    /// state is the answer to both.
    public var isConcurrentChange: Bool {
        switch self {
        case .wrongExpectedVersion, .duplicateEventID: true
        case .invalidAppend, .incompatibleSchema: false
        }
    }
}
