import HTTPTypes
import NIOCore
import Synchronization

/// An in-memory cache of public answers, bounded by entries and bytes; the oldest entries go first.
///
/// All entries share one short TTL (at most 5 minutes), so first-in-first-out eviction is as good as LRU here and
/// costs O(1); expired entries at the old end are dropped whenever an answer is stored, so the cache shrinks when
/// traffic does. An entry's cost is its body, its header text, its key, its tags and ``entryOverheadBytes`` of
/// bookkeeping — what it holds in memory, not only what it sends.
///
/// **Invalidation.** Each entry carries tags (what it depends on, e.g. `tour-management/tour:<id>`). ``purge(tags:position:)``
/// drops the entries of a tag and raises the tag's *floor* to the producer's log position of the change: an answer is
/// stored only if the position it reports is at or above the floor of each of its tags, so a read model that trails the
/// change cannot put the old answer back. An answer without a position is stored only if nothing was purged since its
/// fetch began (``mark``). While ``isStoring`` is false (the event follower is not live) nothing is stored; lookups
/// stay cheap (one dictionary read under the lock), since tags are handled when storing and purging only.
public final class ResponseCache: Sendable {
    /// Most entries kept.
    public let maximumEntries: Int
    /// Most bytes kept in total.
    public let maximumBytes: Int
    /// Largest single entry.
    public let maximumEntryBytes: Int
    /// Most tag floors kept; beyond it they are folded into one floor per producer (``purge(tags:position:)``).
    public let maximumFloors: Int

    private struct Entry {
        var response: CachedResponse
        var sequence: Int
        var tags: [String]
    }

    private struct Storage {
        var entries: [String: Entry] = [:]
        var order: [(key: String, sequence: Int)] = []
        var head = 0
        var nextSequence = 0
        var bytes = 0
        /// The keys of the entries carrying each tag.
        var keysByTag: [String: Set<String>] = [:]
        /// The highest producer log position of a change of each tag.
        var floors: [String: Int64] = [:]
        /// Counts purges; an answer without a position remembers it when its fetch begins.
        var purges: UInt64 = 0
        /// ``purges`` at the last ``purgeAll(stopStoring:)``: answers fetched before it are never stored.
        var purgedAllAt: UInt64 = 0
        var isStoring = true
    }

    private let storage = Mutex(Storage())

    /// Bookkeeping bytes counted per entry besides its body, headers and key (the dictionary slot, the header
    /// storage, the order queue).
    public static let entryOverheadBytes = 256
    /// Bookkeeping bytes counted per tag of an entry besides its text (the tag index's slot).
    public static let tagOverheadBytes = 32

    /// What `response` stored under `key` with `tags` counts against ``maximumBytes``.
    public static func cost(_ key: String, _ response: CachedResponse, tags: [String] = []) -> Int {
        response.size + key.utf8.count + entryOverheadBytes + tags.reduce(0) { $0 + $1.utf8.count + tagOverheadBytes }
    }

    /// An empty cache with the given bounds.
    public init(maximumEntries: Int, maximumBytes: Int, maximumEntryBytes: Int, maximumFloors: Int = 100_000) {
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
        self.maximumEntryBytes = maximumEntryBytes
        self.maximumFloors = maximumFloors
    }

    /// The fresh entry under `key`, if any.
    public func lookup(_ key: String, now: ContinuousClock.Instant = .now) -> CachedResponse? {
        storage.withLock { storage in
            guard let entry = storage.entries[key] else { return nil }
            guard entry.response.expiresAt > now else {
                Self.remove(key, entry, &storage)
                return nil
            }
            return entry.response
        }
    }

    /// Where the purges stand: taken when a fetch begins and handed to ``store(_:_:tags:position:fetchedAt:now:)``.
    public var mark: UInt64 { storage.withLock { $0.purges } }

    /// Stores `response` under `key` unless it is larger than ``maximumEntryBytes``, evicting the oldest entries to
    /// stay within the bounds. With `tags`, it is stored only while ``isStoring``, if no ``purgeAll(stopStoring:)``
    /// happened since `fetchedAt`, and — with a `position` — if the position is at or above every tag's floor, or —
    /// without one — if nothing was purged since `fetchedAt`.
    /// - Returns: whether it was stored.
    @discardableResult
    public func store(_ key: String, _ response: CachedResponse, tags: [String] = [], position: Int64? = nil, fetchedAt: UInt64? = nil,
                      now: ContinuousClock.Instant = .now) -> Bool {
        let size = Self.cost(key, response, tags: tags)
        guard response.size <= maximumEntryBytes, size <= maximumBytes else { return false }
        return storage.withLock { storage in
            if let fetchedAt {
                guard storage.isStoring, fetchedAt >= storage.purgedAllAt else { return false }
                if let position {
                    // Floors folded away (too many tags) live on in `<producer>/*`, which every entry of the
                    // producer carries (``EdgeCache``).
                    for tag in tags where (storage.floors[tag] ?? 0) > position { return false }
                } else if storage.purges != fetchedAt {
                    return false
                }
            }
            dropExpired(&storage, now: now)
            if let old = storage.entries[key] { Self.remove(key, old, &storage) }
            let sequence = storage.nextSequence
            storage.nextSequence += 1
            storage.entries[key] = Entry(response: response, sequence: sequence, tags: tags)
            for tag in tags { storage.keysByTag[tag, default: []].insert(key) }
            storage.order.append((key, sequence))
            storage.bytes += size
            while storage.entries.count > maximumEntries || storage.bytes > maximumBytes {
                evictOldest(&storage)
            }
            if storage.head > 1024, storage.head * 2 > storage.order.count {
                storage.order.removeFirst(storage.head)
                storage.head = 0
            }
            return true
        }
    }

    /// Drops every entry carrying one of `tags` and, with a `position` (the producer's log position of the change),
    /// raises those tags' floors to it.
    /// - Returns: the number of entries dropped.
    @discardableResult
    public func purge(tags: [String], position: Int64?) -> Int {
        storage.withLock { storage in
            storage.purges += 1
            var dropped = 0
            for tag in tags {
                if let position { storage.floors[tag] = max(storage.floors[tag] ?? 0, position) }
                guard let keys = storage.keysByTag[tag] else { continue }
                for key in keys {
                    guard let entry = storage.entries[key] else { continue }
                    Self.remove(key, entry, &storage)
                    dropped += 1
                }
            }
            if storage.floors.count > maximumFloors { Self.foldFloors(&storage) }
            return dropped
        }
    }

    /// Drops every entry; answers fetched before now are never stored. With `stopStoring`, nothing is stored until
    /// ``resumeStoring()`` (the event follower lost its source: changes may go unseen).
    /// - Returns: the number of entries dropped.
    @discardableResult
    public func purgeAll(stopStoring: Bool) -> Int {
        storage.withLock { storage in
            let dropped = storage.entries.count
            storage.entries = [:]
            storage.keysByTag = [:]
            storage.order = []
            storage.head = 0
            storage.bytes = 0
            storage.purges += 1
            storage.purgedAllAt = storage.purges
            if stopStoring { storage.isStoring = false }
            return dropped
        }
    }

    /// Stores again after ``purgeAll(stopStoring:)`` stopped it (the event follower is live).
    public func resumeStoring() {
        storage.withLock { $0.isStoring = true }
    }

    /// Whether answers are stored now.
    public var isStoring: Bool { storage.withLock { $0.isStoring } }

    /// The floor of `tag` (0 when it has none), for tests and operators.
    public func floor(of tag: String) -> Int64 { storage.withLock { $0.floors[tag] ?? 0 } }

    /// Number of entries and bytes held (for tests and metrics).
    public var usage: (entries: Int, bytes: Int) { storage.withLock { ($0.entries.count, $0.bytes) } }

    private static func remove(_ key: String, _ entry: Entry, _ storage: inout Storage) {
        storage.bytes -= cost(key, entry.response, tags: entry.tags)
        storage.entries[key] = nil
        for tag in entry.tags {
            storage.keysByTag[tag]?.remove(key)
            if storage.keysByTag[tag]?.isEmpty == true { storage.keysByTag[tag] = nil }
        }
    }

    /// Replaces the floors by one per producer (`<producer>/*`, the highest of its floors): more conservative (answers
    /// below it are not stored whatever their tags), and bounded.
    private static func foldFloors(_ storage: inout Storage) {
        var folded: [String: Int64] = [:]
        for (tag, floor) in storage.floors {
            let producer = tag.split(separator: "/", maxSplits: 1).first.map(String.init) ?? tag
            folded["\(producer)/*"] = max(folded["\(producer)/*"] ?? 0, floor)
        }
        storage.floors = folded
    }

    private func evictOldest(_ storage: inout Storage) {
        while storage.head < storage.order.count {
            let (key, sequence) = storage.order[storage.head]
            storage.head += 1
            if let entry = storage.entries[key], entry.sequence == sequence {
                Self.remove(key, entry, &storage)
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
                Self.remove(key, entry, &storage)
            }
            storage.head += 1
        }
    }
}
