import Synchronization

/// Token buckets by client key (user id or IP address) for one rate-limit policy.
///
/// Each key's bucket holds up to ``Policy/quota`` tokens and refills at `quota` per ``Policy/window``; a request takes
/// one. Memory is bounded: a bucket idle for a whole window is full again — the same as no bucket — so idle buckets are
/// dropped whenever ``maximumKeys`` is reached (and once per window); if every bucket is busy, the least recently used
/// half goes (those clients start again with a full bucket: a flood of addresses degrades the limit, not the process).
public final class RateLimiter: Sendable {
    /// A named quota per window, as announced in `RateLimit-Policy`.
    public struct Policy: Sendable, Hashable {
        /// The policy's name in the headers, e.g. `default` or `auth`.
        public var name: String
        /// Requests allowed per window.
        public var quota: Int
        /// The window, in whole seconds.
        public var windowSeconds: Int

        /// A policy of `quota` requests per `windowSeconds`.
        public init(name: String, quota: Int, windowSeconds: Int = 60) {
            self.name = name
            self.quota = quota
            self.windowSeconds = windowSeconds
        }
    }

    /// The outcome of one request.
    public struct Decision: Sendable, Equatable {
        /// Whether the request may proceed.
        public var allowed: Bool
        /// Whole requests left right now.
        public var remaining: Int
        /// Seconds until the bucket is full again.
        public var resetSeconds: Int
        /// When refused: seconds until one request is allowed.
        public var retryAfterSeconds: Int
    }

    /// The policy applied.
    public let policy: Policy
    /// Most buckets kept at once.
    public let maximumKeys: Int

    private struct Bucket {
        var tokens: Double
        var updatedAt: ContinuousClock.Instant
    }

    private struct Buckets {
        var byKey: [String: Bucket] = [:]
        var lastSweep: ContinuousClock.Instant = .now
    }

    private let buckets = Mutex(Buckets())

    /// A limiter applying `policy`, keeping at most `maximumKeys` buckets.
    public init(policy: Policy, maximumKeys: Int = 100_000) {
        self.policy = policy
        self.maximumKeys = maximumKeys
    }

    /// Number of buckets held (for tests and metrics).
    public var keyCount: Int { buckets.withLock { $0.byKey.count } }

    /// Takes a token from `key`'s bucket if there is one.
    public func consume(_ key: String) -> Decision {
        let now = ContinuousClock.now
        let capacity = Double(policy.quota)
        let perSecond = capacity / Double(policy.windowSeconds)
        return buckets.withLock { buckets in
            if buckets.byKey.count >= maximumKeys || now - buckets.lastSweep > .seconds(policy.windowSeconds) {
                sweep(&buckets, now: now)
            }
            var bucket = buckets.byKey[key] ?? Bucket(tokens: capacity, updatedAt: now)
            bucket.tokens = min(capacity, bucket.tokens + seconds(now - bucket.updatedAt) * perSecond)
            bucket.updatedAt = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            buckets.byKey[key] = bucket
            return Decision(
                allowed: allowed,
                remaining: Int(bucket.tokens.rounded(.down)),
                resetSeconds: Int(((capacity - bucket.tokens) / perSecond).rounded(.up)),
                retryAfterSeconds: allowed ? 0 : max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
            )
        }
    }

    private func sweep(_ buckets: inout Buckets, now: ContinuousClock.Instant) {
        let window = Duration.seconds(policy.windowSeconds)
        buckets.byKey = buckets.byKey.filter { now - $0.value.updatedAt < window }
        if buckets.byKey.count >= maximumKeys {
            let keep = buckets.byKey.sorted { $0.value.updatedAt > $1.value.updatedAt }.prefix(maximumKeys / 2)
            buckets.byKey = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
        buckets.lastSweep = now
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
