import EventSourcing
import Foundation
import Hummingbird
import Messaging
import ServiceTesting
import Synchronization
import Testing

/// The embedded feed reads past the events a producer does not serve once, not on every poll: pages say how far they
/// read (`scanned`), and ``FeedCursor`` asks after that while the consumer's stored position is where the page left it.
@Suite("Embedded feed: skipped events read once")
struct FeedCursorTests {
    @Test("the cursor resumes after the scanned position only while the stored position is what the page left it at")
    func rules() {
        let cursor = FeedCursor()
        #expect(cursor.after("a", stored: 5) == 5, "nothing recorded")
        cursor.record("a", asked: 5, lastServed: nil, scanned: 40)
        #expect(cursor.after("a", stored: 5) == 40, "an empty page read to 40")
        #expect(cursor.after("b", stored: 5) == 5, "per source")
        cursor.record("a", asked: 5, lastServed: 50, scanned: 60)
        #expect(cursor.after("a", stored: 50) == 60, "every event of the page handled")
        #expect(cursor.after("a", stored: 5) == 5, "the page's handling failed: fetched again from the stored position")
        #expect(cursor.after("a", stored: 45) == 45, "part of it handled")
        cursor.record("a", asked: 50, lastServed: 70, scanned: 70)
        #expect(cursor.after("a", stored: 70) == 70, "nothing skipped after the last event")
        cursor.record("a", asked: 70, lastServed: nil, scanned: nil)
        #expect(cursor.after("a", stored: 70) == 70, "a producer that does not say")
    }

    /// A store that counts the events `readAll` hands out.
    final class CountingStore: EventStore {
        let base: SQLiteEventStore
        let read = Mutex(0)
        init(_ base: SQLiteEventStore) { self.base = base }
        func append(_ events: [NewEvent], to streamID: String, expectedVersion: ExpectedVersion) async throws -> AppendResult {
            try await base.append(events, to: streamID, expectedVersion: expectedVersion)
        }
        func readStream(_ streamID: String, fromVersion: Int64, limit: Int) async throws -> [EventEnvelope] {
            try await base.readStream(streamID, fromVersion: fromVersion, limit: limit)
        }
        func readAll(after position: Int64, limit: Int) async throws -> [EventEnvelope] {
            let events = try await base.readAll(after: position, limit: limit)
            read.withLock { $0 += events.count }
            return events
        }
        func headPosition() async throws -> Int64 { try await base.headPosition() }
        func streamVersion(_ streamID: String) async throws -> Int64 { try await base.streamVersion(streamID) }
        func waitForAppends(after position: Int64, timeout: Duration) async { await base.waitForAppends(after: position, timeout: timeout) }
    }

    static func event(_ type: String) throws -> NewEvent {
        NewEvent(eventType: type, payload: Data(#"{"n":1}"#.utf8))
    }

    @Test("a consumer polling a producer that skips most of its log reads each skipped event once, and misses no served one")
    func skippedOnce() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = CountingStore(try await SQLiteEventStore(database: try directory.database("producer")))
        _ = try await store.append([try Self.event("Served")], to: "s-1", expectedVersion: .any)
        _ = try await store.append((0..<300).map { _ in try Self.event("Skipped") }, to: "k-1", expectedVersion: .any)
        let router = Router()
        EventFeedController(store: store, source: "producer", include: { $0.eventType == "Served" }).addRoutes(to: router.group("/v1/internal"))
        try await LoopbackServer.run(router: router) { port in
            let source = EmbeddedFeedSource(feeds: [EmbeddedFeed(source: "producer", baseURL: "http://127.0.0.1:\(port)",
                                                                 internalToken: "internal-token-for-tests-0123456789")])
            var stored: Int64 = 0
            var received: [Int64] = []
            func poll() async throws {
                let events = try await source.next(maxEvents: 100, timeout: .zero, positions: ["producer": stored])
                received += events.map(\.event.position)
                stored = events.last?.event.position ?? stored  // the consumer stores what it handled
            }
            try await poll()
            #expect(received == [1] && store.read.withLock { $0 } == 301, "the first page reads the whole log")
            for _ in 0..<5 { try await poll() }
            #expect(store.read.withLock { $0 } == 301, "no skipped event read again: \(store.read.withLock { $0 })")
            _ = try await store.append([try Self.event("Skipped"), try Self.event("Served"), try Self.event("Skipped")], to: "k-2",
                                       expectedVersion: .any)
            try await poll()
            try await poll()
            #expect(received == [1, 303], "the new served event, once")
            #expect(store.read.withLock { $0 } == 304, "only the three new events read: \(store.read.withLock { $0 })")
            // A consumer whose handling failed asks again from its stored position, and gets the event again.
            let again = try await source.next(maxEvents: 100, timeout: .zero, positions: ["producer": 1])
            #expect(again.map(\.event.position) == [303])
        }
    }
}
