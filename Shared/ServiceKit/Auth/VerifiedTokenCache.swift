import JWTKit
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Access tokens whose signature and claims verified, keyed by the whole token string, so a repeated token costs no
/// RSA check and no JSON decoding (a navigating app sends the same token with every fix, once a second).
///
/// What the cache keeps is only the result of the checks that cannot change for a given string — its header, its
/// signature under the key its `kid` named, its claims. Everything that can change is checked again on every use by
/// ``AccessTokenVerifier``: the times (`exp` with the leeway, so an expired token is refused exactly as without the
/// cache), that the `kid` still names the same key, and the session's revocation. Entries leave when their token
/// expires; the cache holds at most ``capacity`` tokens (when full, expired entries are dropped, then — if still full
/// — all of them: a cold cache only costs verifications).
final class VerifiedTokenCache: Sendable {
    struct Entry: Sendable {
        var kid: String
        /// The DER of the key the token verified under.
        var key: Data
        var claims: AccessTokenClaims
    }

    let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { entries.withLock { $0.count } }

    func entry(for token: String) -> Entry? {
        guard capacity > 0 else { return nil }
        return entries.withLock { $0[token] }
    }

    /// Remembers a verified token; `now` and `leeway` decide which entries have expired when the cache is full.
    func store(_ entry: Entry, for token: String, now: Date, leeway: TimeInterval) {
        guard capacity > 0 else { return }
        entries.withLock { entries in
            if entries.count >= capacity, entries[token] == nil {
                entries = entries.filter { now.timeIntervalSince($0.value.claims.expiresAt.value) < leeway }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = entry
        }
    }

    func remove(_ token: String) {
        _ = entries.withLock { $0.removeValue(forKey: token) }
    }
}
