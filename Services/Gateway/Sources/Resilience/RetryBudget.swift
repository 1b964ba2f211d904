import Synchronization

/// How many retries an upstream may receive: a share of its requests plus a small floor, so retries help with a blip
/// but cannot multiply the load on a service that is already failing (a retry storm).
///
/// Every request deposits `percent / 100` of a token, time deposits `minimumPerSecond` tokens per second, and a retry
/// withdraws one whole token. The balance is capped at ``capacity`` so a quiet hour does not bank a burst.
public final class RetryBudget: Sendable {
    /// Share of requests that may be retried, in percent.
    public let percent: Int
    /// Retries allowed per second whatever the traffic.
    public let minimumPerSecond: Int
    /// Largest balance, in retries.
    public let capacity: Double

    /// Balances are kept in thousandths of a retry, so ten deposits of 10 % make exactly one retry.
    private struct Balance {
        var milli: Int
        var updatedAt: ContinuousClock.Instant
    }

    private let balance: Mutex<Balance>

    /// A budget of `percent` % of requests plus `minimumPerSecond` retries per second.
    public init(percent: Int = 10, minimumPerSecond: Int = 1, capacity: Double = 10) {
        self.percent = percent
        self.minimumPerSecond = minimumPerSecond
        self.capacity = capacity
        self.balance = Mutex(Balance(milli: min(Int(capacity * 1000), minimumPerSecond * 1000), updatedAt: .now))
    }

    /// Records one original request.
    public func deposit() {
        balance.withLock { balance in
            refill(&balance)
            balance.milli = min(Int(capacity * 1000), balance.milli + percent * 10)
        }
    }

    /// Takes one retry from the budget; `false` when it is spent.
    public func withdraw() -> Bool {
        balance.withLock { balance in
            refill(&balance)
            guard balance.milli >= 1000 else { return false }
            balance.milli -= 1000
            return true
        }
    }

    private func refill(_ balance: inout Balance) {
        let now = ContinuousClock.now
        let elapsed = now - balance.updatedAt
        let earned = (elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000) * Int64(minimumPerSecond)
        guard earned > 0 || minimumPerSecond == 0 else { return }  // keep the fraction of a millisecond for later
        balance.milli = min(Int(capacity * 1000), balance.milli + Int(earned))
        balance.updatedAt = now
    }
}
