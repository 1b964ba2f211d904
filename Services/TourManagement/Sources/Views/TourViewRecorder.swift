import Contracts
import Crypto
import EventSourcing
import Foundation
import Logging
import ServiceKit
import ServiceLifecycle
import Synchronization

/// Records `TourViewed` for detail views, once per viewer per tour per clock hour (UTC), on stream `views-<tourId>`.
///
/// The event id is derived from (tour, viewer, hour), so a second view in the same hour — from this process or, after a
/// restart, from the log — is refused by the store as a duplicate id and records nothing. A small in-memory set spares
/// the store those attempts. Anonymous viewers are keyed by an HMAC of their address and user agent under a key that
/// never leaves the process and changes at every start: nothing that identifies a person is stored, and unique-viewer
/// counts stay exact within an hour.
///
/// A view is written off the request's path: ``record(tour:guide:viewer:user:at:)`` queues it and the page is served
/// without waiting for a durable commit; the recorder, run as a background service, lets views gather for ``linger``
/// after the first one arrives, then appends what is queued — all of it at once, so the store's group commit makes one
/// transaction of many views. Every commit wakes each projection, relay and feed reader of the log; without the linger a
/// busy catalogue made one commit per view (hundreds a second) and that wake-up work cost more than serving the pages.
/// When more than ``capacity`` views wait
/// (the store is slow), a view is written before its page is served instead, so the queue stays bounded. Graceful
/// shutdown (the HTTP server has drained first) writes everything queued; a crash loses at most the views queued in the
/// last moments — views are counted, never acknowledged to anyone.
public final class TourViewRecorder: Service, Sendable {
    let store: AnyEventStore
    let logger: Logger
    /// Most views waiting to be written before `record` writes inline.
    public let capacity: Int
    /// How long the first queued view waits for others before the queue is written.
    public let linger: Duration
    private let clientKey = SymmetricKey(size: .bits256)
    private let recent = Mutex<(hour: Int64, keys: Set<String>)>((0, []))
    private let queue = Mutex<Queue>(Queue())
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation

    struct Pending: Sendable {
        let streamID: String
        let event: NewEvent
    }

    struct Queue {
        var pending: [Pending] = []
        /// Views queued since the start, and views written (or given up) since the start.
        var queued = 0, done = 0
        /// Whether the background writer runs (else `record` writes inline).
        var running = false
    }

    public init(store: AnyEventStore, logger: Logger, capacity: Int = 10_000, linger: Duration = .milliseconds(50)) {
        self.store = store
        self.logger = logger
        self.capacity = capacity
        self.linger = linger
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The viewer key of a request: `user:<id>` for a signed-in user, else `client:<hmac>` of what identifies the client.
    public func viewer(user: UUID?, clientAddress: String?, userAgent: String?) -> String {
        if let user { return "user:\(user.uuidString.lowercased())" }
        let material = Data("\(clientAddress ?? "-")\n\(userAgent ?? "-")".utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: material, using: clientKey)
        return "client:" + Data(mac).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// Records a view unless this viewer already viewed this tour in this hour: queued for the background writer, or
    /// written now when the writer does not run or is ``capacity`` views behind. Never throws: a view that cannot be
    /// recorded is logged, the page is still served.
    public func record(tour: UUID, guide: UUID, viewer: String, user: UUID?, at date: Date) async {
        let hour = Int64((date.timeIntervalSince1970 / 3_600).rounded(.down))
        let key = "\(tour.uuidString.lowercased())|\(viewer)|\(hour)"
        let fresh = recent.withLock { state in
            if state.hour != hour { state = (hour, []) }
            return state.keys.insert(key).inserted
        }
        guard fresh else { return }
        let pending: Pending
        do {
            let event = try TourViewed(tourId: tour, guideId: guide, viewer: viewer, userId: user, viewedAt: date).newEvent(id: Self.eventID(key))
            pending = Pending(streamID: "views-\(tour.uuidString.lowercased())", event: event)
        } catch {
            return logger.warning("tour view not recorded", metadata: ["tour": "\(tour)", "error": "\(error)"])
        }
        let queued = queue.withLock { queue in
            guard queue.running, queue.pending.count < capacity else { return false }
            queue.pending.append(pending)
            queue.queued += 1
            return true
        }
        if queued {
            ring.yield()
        } else {
            await write(pending)
        }
    }

    /// Whether the background writer runs (views are queued rather than written inline).
    public var isRunning: Bool { queue.withLock { $0.running } }

    /// Returns once every view queued before the call is written.
    public func flush() async {
        let target = queue.withLock { $0.queued }
        while queue.withLock({ $0.done < target }) {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Writes queued views until graceful shutdown, then what is still queued.
    public func run() async throws {
        queue.withLock { $0.running = true }
        await withGracefulShutdownHandler {
            for await _ in doorbell.cancelOnGracefulShutdown() {
                // A ring left over from views the last write already took finds the queue empty: no wait for nothing.
                let waiting = queue.withLock { $0.pending.count }
                if waiting == 0 { continue }
                if waiting < Self.batchSize {
                    try? await Task.sleep(for: linger)
                }
                await writeQueued()
            }
        } onGracefulShutdown: {
            self.ring.finish()
        }
        queue.withLock { $0.running = false }
        await writeQueued()
    }

    /// Most views appended at once.
    static let batchSize = 256

    /// Appends everything queued, up to ``batchSize`` at once (the store's group commit makes few transactions of
    /// them), until the queue is empty.
    private func writeQueued() async {
        while true {
            let batch = queue.withLock { queue in
                let batch = Array(queue.pending.prefix(Self.batchSize))
                queue.pending.removeFirst(batch.count)
                return batch
            }
            guard !batch.isEmpty else { return }
            await withTaskGroup(of: Void.self) { group in
                for pending in batch { group.addTask { await self.write(pending) } }
            }
            queue.withLock { $0.done += batch.count }
        }
    }

    private func write(_ pending: Pending) async {
        do {
            _ = try await store.append([pending.event], to: pending.streamID, expectedVersion: .any)
        } catch EventStoreError.duplicateEventID {
            // Recorded before (an earlier process in the same hour).
        } catch {
            logger.warning("tour view not recorded", metadata: ["stream": "\(pending.streamID)", "error": "\(error)"])
        }
    }

    /// A UUID (version 8, RFC 9562 custom) from the SHA-256 of `key`.
    static func eventID(_ key: String) -> UUID {
        var bytes = Array(SHA256.hash(data: Data(key.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
