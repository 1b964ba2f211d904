import HTTPTypes
import NIOCore
import Synchronization

/// An in-memory cache of public answers, bounded by entries and bytes; the oldest entries go first.
///
/// All entries share one short TTL (at most 5 minutes), so first-in-first-out eviction is as good as LRU here and
/// costs O(1).
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
                storage.bytes -= entry.response.size
                storage.entries[key] = nil
                return nil
            }
            return entry.response
        }
    }

    /// Stores `response` under `key` unless it is larger than ``maximumEntryBytes``, evicting the oldest entries to
    /// stay within the bounds.
    public func store(_ key: String, _ response: CachedResponse) {
        let size = response.size
        guard size <= maximumEntryBytes, size <= maximumBytes else { return }
        storage.withLock { storage in
            if let old = storage.entries[key] { storage.bytes -= old.response.size }
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
                storage.bytes -= entry.response.size
                storage.entries[key] = nil
                return
            }
        }
    }
}
