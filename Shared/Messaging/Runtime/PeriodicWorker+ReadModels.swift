import EventSourcing
import Logging
import ServiceKit

extension PeriodicWorker {
    /// A worker whose first round waits until every one of `projections` is live (`waitUntilLive`): scheduled work
    /// that reads a read model must not act on one still being created or replayed.
    ///
    /// - Parameters:
    ///   - name: What the work is, in logs.
    ///   - interval: Pause between the end of one round and the start of the next.
    ///   - immediately: Whether the first round runs as soon as the read models are live; otherwise `interval` later.
    ///   - projections: The read models the rounds read.
    ///   - logger: Where failed rounds are logged.
    ///   - round: One round of the work.
    public init(_ name: String, every interval: Duration, immediately: Bool = true, after projections: [any ProjectionRunning],
                logger: Logger, round: @escaping @Sendable () async throws -> Void) {
        self.init(name, every: interval, immediately: immediately, logger: logger,
                  waitingFor: { await waitUntilLive(projections) }, round: round)
    }
}
