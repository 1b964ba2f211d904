import Contracts
import Foundation

/// The hub's memory: the newest notifications of each recently active user, bounded four ways — per user
/// (``perUserLimit``, oldest dropped first), by age (``retention`` by `occurredAt`), in users (``maxUsers``) and in
/// notifications over all users (``maxNotifications``); past either of the last two, the least recently active user's
/// buffer is dropped first. A plain value: the hub keeps it under its lock.
struct NotificationBuffers: Sendable {
    let perUserLimit: Int
    let retention: TimeInterval
    let maxUsers: Int
    let maxNotifications: Int

    private var buffers: [UUID: [UserNotified]] = [:]
    private var recency = RecencyList<UUID>()
    /// Users erased while this hub ran: their notifications are not kept even if they arrive later (a producer's feed
    /// replayed from the start). Bounded like the buffers.
    private var erased = RecencyList<UUID>()

    /// Notifications held, over all users.
    private(set) var notificationCount = 0

    init(perUserLimit: Int, retention: TimeInterval, maxUsers: Int, maxNotifications: Int) {
        self.perUserLimit = perUserLimit
        self.retention = retention
        self.maxUsers = maxUsers
        self.maxNotifications = maxNotifications
    }

    /// Users holding a buffer.
    var userCount: Int { buffers.count }

    /// Keeps `notification` unless it is a duplicate (same id already held), too old, or for an erased user; returns
    /// whether it was kept (and so is new to live subscribers).
    mutating func insert(_ notification: UserNotified, now: Date) -> Bool {
        let user = notification.userId
        guard !erased.contains(user), notification.occurredAt >= now.addingTimeInterval(-retention) else { return false }
        var buffer = buffers[user] ?? []
        guard !buffer.contains(where: { $0.notificationId == notification.notificationId }) else { return false }
        buffer.append(notification)
        if buffer.count > perUserLimit { buffer.removeFirst(buffer.count - perUserLimit) }
        replace(user, with: buffer)
        touch(user)
        return true
    }

    /// The user's notifications after the one with id `lastEventID`, oldest first; all of them when `lastEventID` is
    /// `nil` or not held (never sent, evicted or expired: the client dedupes by id). Marks the user active.
    mutating func notifications(of user: UUID, after lastEventID: UUID?, now: Date) -> [UserNotified] {
        guard var buffer = buffers[user] else { return [] }
        let cutoff = now.addingTimeInterval(-retention)
        buffer.removeAll { $0.occurredAt < cutoff }
        replace(user, with: buffer)
        if buffer.isEmpty { recency.remove(user) } else { touch(user) }
        guard let lastEventID, let index = buffer.firstIndex(where: { $0.notificationId == lastEventID }) else { return buffer }
        return Array(buffer[(index + 1)...])
    }

    /// Marks the user as active (a stream opened), so their buffer is evicted last.
    mutating func touch(_ user: UUID) {
        guard buffers[user] != nil else { return }
        recency.touch(user)
        while buffers.count > maxUsers || notificationCount > maxNotifications, let oldest = recency.oldest {
            if oldest == user, var own = buffers[user] {
                // The only user left: the total bound trims their oldest instead.
                own.removeFirst(min(own.count, notificationCount - maxNotifications))
                replace(user, with: own)
                if own.isEmpty { recency.remove(user) }
                continue
            }
            recency.remove(oldest)
            replace(oldest, with: [])
        }
    }

    /// Sets a user's buffer (none when empty), keeping ``notificationCount`` exact.
    private mutating func replace(_ user: UUID, with buffer: [UserNotified]) {
        notificationCount += buffer.count - (buffers[user]?.count ?? 0)
        buffers[user] = buffer.isEmpty ? nil : buffer
    }

    /// Drops everything held for an erased user, and keeps them from being buffered again.
    mutating func erase(_ user: UUID) {
        replace(user, with: [])
        recency.remove(user)
        erased.touch(user)
        while erased.count > maxUsers, let oldest = erased.oldest { erased.remove(oldest) }
    }
}

/// Keys in order of last use: touch, remove and find the oldest in O(1) (a doubly linked list threaded through a
/// dictionary).
struct RecencyList<Key: Hashable & Sendable>: Sendable {
    private struct Link: Sendable {
        var older: Key?
        var newer: Key?
    }

    private var links: [Key: Link] = [:]
    /// The least recently touched key.
    private(set) var oldest: Key?
    private var newest: Key?

    var count: Int { links.count }

    func contains(_ key: Key) -> Bool { links[key] != nil }

    /// Makes `key` the newest (inserting it when absent).
    mutating func touch(_ key: Key) {
        if newest == key { return }
        remove(key)
        links[key] = Link(older: newest, newer: nil)
        if let newest { links[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
    }

    /// Removes `key` if present.
    mutating func remove(_ key: Key) {
        guard let link = links.removeValue(forKey: key) else { return }
        if let older = link.older { links[older]?.newer = link.newer } else { oldest = link.newer }
        if let newer = link.newer { links[newer]?.older = link.older } else { newest = link.older }
    }
}
