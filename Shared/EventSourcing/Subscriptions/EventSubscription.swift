/// Reads the global log from a position onwards: catch-up in batches, then live, for as long as it is iterated.
///
/// It always pulls from the store, so it can never drop events: "live" is simply waiting for the next append
/// once caught up, and a subscriber that falls behind is back in catch-up by construction.
public struct EventSubscription<Store: EventStore>: AsyncSequence, Sendable {
    public typealias Element = [EventEnvelope]

    let store: Store
    let position: Int64
    let batchSize: Int
    let pollInterval: Duration

    /// Iterates batches of events in position order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let store: Store
        var position: Int64
        let batchSize: Int
        let pollInterval: Duration

        /// The next non-empty batch; `nil` only when the task is cancelled.
        public mutating func next() async throws -> [EventEnvelope]? {
            while !Task.isCancelled {
                let batch = try await store.readAll(after: position, limit: batchSize)
                if let last = batch.last {
                    position = last.position
                    return batch
                }
                await store.waitForAppends(after: position, timeout: pollInterval)
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(store: store, position: position, batchSize: batchSize, pollInterval: pollInterval)
    }
}

extension EventStore {
    /// Subscribes to every event after `position` (0 = from the beginning).
    ///
    /// - Parameters:
    ///   - batchSize: most events per yielded batch.
    ///   - pollInterval: how long to wait for an in-process wake-up before re-reading the log, which bounds the delay
    ///     for events appended by other processes.
    public func subscribe(after position: Int64 = 0, batchSize: Int = 512, pollInterval: Duration = .milliseconds(100)) -> EventSubscription<Self> {
        EventSubscription(store: self, position: position, batchSize: batchSize, pollInterval: pollInterval)
    }
}
