/// How long the launcher waits before restarting a service that exited on its own: exponential back-off from
/// `initial`, doubling per consecutive crash up to `maximum`, and starting afresh once a process had been ready for
/// `resetAfter` before it crashed (a crash an hour after the last one is not part of a crash loop).
public struct RestartBackoff: Sendable, Hashable {
    /// Delay before the first restart.
    public var initial: Duration
    /// Longest delay between restarts.
    public var maximum: Duration
    /// Time ready after which a crash counts as the first of a new series.
    public var resetAfter: Duration

    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(30), resetAfter: Duration = .seconds(60)) {
        self.initial = initial
        self.maximum = maximum
        self.resetAfter = resetAfter
    }

    /// The number of consecutive crashes after one more crash of a process that had been ready for `readyFor`
    /// (`nil` when it never became ready).
    public func consecutiveCrashes(previous: Int, readyFor: Duration?) -> Int {
        if let readyFor, readyFor >= resetAfter { return 1 }
        return previous + 1
    }

    /// The delay before the restart that follows `consecutiveCrashes` crashes in a row (1 → `initial`).
    public func delay(consecutiveCrashes: Int) -> Duration {
        var delay = initial
        for _ in 1..<max(consecutiveCrashes, 1) {
            delay *= 2
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }
}
