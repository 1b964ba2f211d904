import HTTPTypes
import NIOCore
import Synchronization

/// An in-memory cache of public answers, bounded by entries and bytes; the oldest entries go first.
///
/// All entries share one short TTL (at most 5 minutes), so first-in-first-out eviction is as good as LRU here and
/// costs O(1); expired entries at the old end are dropped whenever an answer is stored, so the cache shrinks when
/// traffic does. An entry's cost is its body, its header text, its key and ``entryOverheadBytes`` of bookkeeping —
/// what it holds in memory, not only what it sends.
public final class ResponseCache: Sendable {
    /// Most entries kept.
    public let maximumEntries: Int
    /// Most bytes kept in total.
    public let maximumBytes: Int
    /// Largest single entry.
    public let maximumEntryBytes: Int

    private struct Storage {
        var entries: [String: (response: CachedResponse, sequence: Int)] = [:]
        var order: [(key: String, sequence: Int)] = []
        var head = 0
        var nextSequence = 0
        var bytes = 0
    }

    private let storage = Mutex(Storage())

    /// Bookkeeping bytes counted per entry besides its body, headers and key (the dictionary slot, the header
    /// storage, the order queue).
    public static let entryOverheadBytes = 256

    /// What `response` stored under `key` counts against ``maximumBytes``.
    public static func cost(_ key: String, _ response: CachedResponse) -> Int {
        response.size + key.utf8.count + entryOverheadBytes
    }

    /// An empty cache with the given bounds.
    public init(maximumEntries: Int, maximumBytes: Int, maximumEntryBytes: Int) {
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
        self.maximumEntryBytes = maximumEntryBytes
    }

    /// The fresh entry under `key`, if any.
    public func lookup(_ key: String, now: ContinuousClock.Instant = .now) -> CachedResponse? {
        storage.withLock { storage in
            guard let entry = storage.entries[key] else { return nil }
            guard entry.response.expiresAt > now else {
                storage.bytes -= Self.cost(key, entry.response)
                storage.entries[key] = nil
                return nil
            }
            return entry.response
        }
    }

    /// Stores `response` under `key` unless it is larger than ``maximumEntryBytes``, evicting the oldest entries to
    /// stay within the bounds.
    public func store(_ key: String, _ response: CachedResponse, now: ContinuousClock.Instant = .now) {
        let size = Self.cost(key, response)
        guard response.size <= maximumEntryBytes, size <= maximumBytes else { return }
        storage.withLock { storage in
            dropExpired(&storage, now: now)
            if let old = storage.entries[key] { storage.bytes -= Self.cost(key, old.response) }
            let sequence = storage.nextSequence
            storage.nextSequence += 1
            storage.entries[key] = (response, sequence)
            storage.order.append((key, sequence))
            storage.bytes += size
            while storage.entries.count > maximumEntries || storage.bytes > maximumBytes {
                evictOldest(&storage)
            }
            if storage.head > 1024, storage.head * 2 > storage.order.count {
                storage.order.removeFirst(storage.head)
                storage.head = 0
            }
        }
    }

    /// Number of entries and bytes held (for tests and metrics).
    public var usage: (entries: Int, bytes: Int) { storage.withLock { ($0.entries.count, $0.bytes) } }

    private func evictOldest(_ storage: inout Storage) {
        while storage.head < storage.order.count {
            let (key, sequence) = storage.order[storage.head]
            storage.head += 1
            if let entry = storage.entries[key], entry.sequence == sequence {
                storage.bytes -= Self.cost(key, entry.response)
                storage.entries[key] = nil
                return
            }
        }
    }

    /// Drops the expired entries at the old end of the order (and the order's stale slots before them).
    private func dropExpired(_ storage: inout Storage, now: ContinuousClock.Instant) {
        while storage.head < storage.order.count {
            let (key, sequence) = storage.order[storage.head]
            if let entry = storage.entries[key], entry.sequence == sequence {
                guard entry.response.expiresAt <= now else { return }
                storage.bytes -= Self.cost(key, entry.response)
                storage.entries[key] = nil
            }
            storage.head += 1
        }
    }
}
