import Foundation
import Synchronization

/// The lockout of logins that name no password account — an unknown email, an erased account, an account created by
/// single sign-on — counted exactly like an account's (`LoginFailed`): the 10th consecutive failure locks the email for
/// 15 minutes, every attempt while locked is `429 account-locked` with the same `Retry-After`, and after a lock has run
/// out the count starts afresh. So the lockout no longer tells registered addresses from others.
///
/// Kept in memory, by the SHA-256 of the normalised email (no address is held), in each instance; bounded by
/// ``capacity`` (beyond it, the entries whose last failure is oldest are dropped first). An account's count lives in
/// its log instead, so a restart or a second instance behind a balancer forgets these counts but not an account's —
/// the one remaining difference, visible only to someone who can see instances restart.
final class UnknownAccountLockout: Sendable {
    struct Entry: Sendable {
        var failures: Int
        var lockedUntil: Date?
        var lastFailure: Date
    }

    let threshold: Int
    let duration: TimeInterval
    let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(settings: AuthSettings, capacity: Int = 100_000) {
        threshold = settings.lockoutThreshold
        duration = settings.lockoutDuration.timeInterval
        self.capacity = capacity
    }

    /// When the lock of `email` ends, if it is locked at `now`.
    func lockedUntil(_ email: String, at now: Date) -> Date? {
        let key = Self.key(email)
        return entries.withLock { entries in
            guard let until = entries[key]?.lockedUntil, until > now else { return nil }
            return until
        }
    }

    /// Counts a failed login of `email`; returns the end of the lock it started, if this was the failure that locks.
    @discardableResult
    func recordFailure(_ email: String, at now: Date) -> Date? {
        let key = Self.key(email)
        return entries.withLock { entries in
            var entry = entries[key] ?? Entry(failures: 0, lockedUntil: nil, lastFailure: now)
            // A lock that has run out starts a fresh count (as `AuthCommands.recordFailedLogin` does for accounts).
            if let until = entry.lockedUntil, until <= now { entry = Entry(failures: 0, lockedUntil: nil, lastFailure: now) }
            entry.failures += 1
            entry.lastFailure = now
            if entry.failures >= threshold, entry.lockedUntil == nil { entry.lockedUntil = now.addingTimeInterval(duration) }
            if entries[key] == nil, entries.count >= capacity { Self.evict(&entries, keeping: capacity * 3 / 4) }
            entries[key] = entry
            return entry.failures == threshold ? entry.lockedUntil : nil
        }
    }

    /// How many emails are tracked (tests, bounds).
    var count: Int { entries.withLock { $0.count } }

    private static func evict(_ entries: inout [String: Entry], keeping limit: Int) {
        let oldestFirst = entries.sorted { $0.value.lastFailure < $1.value.lastFailure }
        for (key, _) in oldestFirst.prefix(max(0, entries.count - limit)) { entries[key] = nil }
    }

    private static func key(_ email: String) -> String {
        SecretToken.hash(Array("waypoint-auth:login:\(Normalize.email(email))".utf8))
    }
}
