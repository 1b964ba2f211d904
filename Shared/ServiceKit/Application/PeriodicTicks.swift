/// The ticks of a ``PeriodicWorker``: one at once when `immediately` is set, then one `interval` after the previous
/// tick was consumed — a fixed delay between the end of one round and the start of the next, never a burst of rounds
/// that fell behind. The sequence ends when the iterating task is cancelled (graceful shutdown cancels it through
/// `cancelWhenGracefulShutdown`).
public struct PeriodicTicks: AsyncSequence, Sendable {
    /// A tick carries nothing: it only says "run a round now".
    public typealias Element = Void
    /// Iteration never throws; cancellation ends it.
    public typealias Failure = Never

    /// Pause between the end of one round and the next tick.
    public let interval: Duration
    /// Whether the first tick comes at once rather than after `interval`.
    public let immediately: Bool

    /// Ticks every `interval`, the first one at once when `immediately` is set.
    public init(interval: Duration, immediately: Bool = true) {
        self.interval = interval
        self.immediately = immediately
    }

    /// Starts the ticks.
    public func makeAsyncIterator() -> Iterator {
        Iterator(interval: interval, immediate: immediately)
    }

    /// Sleeps `interval` (except before an immediate first tick) and ticks, or ends once the task is cancelled.
    public struct Iterator: AsyncIteratorProtocol {
        /// Iteration never throws; cancellation ends it.
        public typealias Failure = Never

        let interval: Duration
        var immediate: Bool

        /// The next tick, or `nil` once the task is cancelled.
        public mutating func next() async -> Void? {
            if immediate {
                immediate = false
            } else {
                do { try await Task.sleep(for: interval) } catch { return nil }
            }
            return Task.isCancelled ? nil : ()
        }
    }
}
