import AsyncHTTPClient
import EventSourcing
import Foundation
import Hummingbird
import Messaging
import NIOCore
import ServiceTesting
import Testing

/// A consumer names the event types it applies (`types=` on the embedded feed): the producer serves only those, and a
/// long poll goes on waiting while only other types are appended — the events a consumer would ignore are neither
/// encoded, sent nor decoded, and do not end its poll (the gateway's notification hub polls every producer at once and
/// cancels the other polls when one answers).
@Suite("Embedded feed: only the event types a consumer asks for")
struct FeedTypesTests {
    static func event(_ type: String) -> NewEvent {
        NewEvent(eventType: type, payload: Data(#"{"n":1}"#.utf8))
    }

    static func withProducer(_ body: @escaping @Sendable (SQLiteEventStore, Int) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteEventStore(database: try directory.database("producer"))
        let router = Router()
        // The producer's own filter stays in force: `Internal` is never served, whatever a consumer asks.
        EventFeedController(store: store, source: "producer", include: { $0.eventType != "Internal" })
            .addRoutes(to: router.group("/v1/internal"))
        try await LoopbackServer.run(router: router) { port in try await body(store, port) }
    }

    static func feed(_ port: Int, _ types: Set<String>?) -> EmbeddedFeed {
        EmbeddedFeed(source: "producer", baseURL: "http://127.0.0.1:\(port)", internalToken: "internal-token-for-tests-0123456789")
            .only(types)
    }

    @Test("only the asked types are served, in log order, and the producer's own filter still applies")
    func onlyAskedTypes() async throws {
        try await Self.withProducer { store, port in
            let types = ["A", "B", "Internal", "C", "B", "A", "Internal", "C", "B"]
            for (index, type) in types.enumerated() {
                _ = try await store.append([Self.event(type)], to: "s-\(index)", expectedVersion: .any)
            }
            let source = EmbeddedFeedSource(feeds: [Self.feed(port, ["A", "C", "Internal"])])
            let events = try await source.next(maxEvents: 100, timeout: .zero, positions: ["producer": 0])
            #expect(events.map(\.event.eventType) == ["A", "C", "A", "C"])
            #expect(events.map(\.event.position) == [1, 4, 6, 8])
            // After the last served event, the skipped `B` at 9 is read past once: nothing more.
            let more = try await source.next(maxEvents: 100, timeout: .zero, positions: ["producer": 8])
            #expect(more.isEmpty)
            // Without `types`: every served event.
            let all = try await EmbeddedFeedSource(feeds: [Self.feed(port, nil)]).next(maxEvents: 100, timeout: .zero, positions: ["producer": 0])
            #expect(all.map(\.event.eventType) == ["A", "B", "C", "B", "A", "C", "B"])
        }
    }

    @Test("a long poll is not ended by appends of other types: it answers the asked type when it comes, or nothing at the end of the wait")
    func longPollWaitsThroughSkippedAppends() async throws {
        try await Self.withProducer { store, port in
            _ = try await store.append([Self.event("B")], to: "s-0", expectedVersion: .any)
            let source = EmbeddedFeedSource(feeds: [Self.feed(port, ["A"])])
            let clock = ContinuousClock()
            let started = clock.now
            async let polled = source.next(maxEvents: 100, timeout: .seconds(10), positions: ["producer": 1])
            // Other types while the poll waits: each wakes the producer's wait, none may end the poll.
            for round in 0..<5 {
                try await Task.sleep(for: .milliseconds(100))
                _ = try await store.append([Self.event("B"), Self.event("Internal")], to: "b-\(round)", expectedVersion: .any)
            }
            try await Task.sleep(for: .milliseconds(200))
            _ = try await store.append([Self.event("A")], to: "a-1", expectedVersion: .any)
            let events = try await polled
            let elapsed = started.duration(to: clock.now)
            #expect(events.map(\.event.eventType) == ["A"], "the poll answered \(events.map(\.event.eventType))")
            #expect(events.first?.event.position == 12)
            #expect(elapsed >= .milliseconds(600), "the poll ended before the asked type was appended: \(elapsed)")

            // Only other types until the wait is over: an empty page when it ends, not before.
            let quiet = clock.now
            async let empty = source.next(maxEvents: 100, timeout: .seconds(1), positions: ["producer": 12])
            for round in 0..<3 {
                try await Task.sleep(for: .milliseconds(100))
                _ = try await store.append([Self.event("B")], to: "c-\(round)", expectedVersion: .any)
            }
            #expect(try await empty.isEmpty)
            #expect(quiet.duration(to: clock.now) >= .milliseconds(900), "the empty poll ended early")
        }
    }

    @Test("types that are not a list of event type names are refused with 422 naming the field; an empty list serves nothing")
    func invalidTypes() async throws {
        try await Self.withProducer { store, port in
            _ = try await store.append([Self.event("A")], to: "s-0", expectedVersion: .any)
            func get(_ query: String) async throws -> (Int, String) {
                let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/internal/events?after=0&\(query)")
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                let body = try await response.body.collect(upTo: 1 << 20)
                return (Int(response.status.code), String(buffer: body))
            }
            let tooMany = (0...EventFeedController<SQLiteEventStore>.maxTypes).map { "T\($0)" }.joined(separator: ",")
            for bad in ["types=A,,B", "types=A%20B", "types=A;B", "types=\(String(repeating: "x", count: 129))", "types=\(tooMany)",
                        "types=%C3%A9"] {
                let (status, body) = try await get(bad)
                #expect(status == 422, "\(bad): \(status)")
                #expect(body.contains("\"types\""), "\(bad): \(body)")
            }
            let (status, body) = try await get("types=")
            #expect(status == 200)
            let page = try EventJSON.decode(EventFeedPage.self, from: Data(body.utf8))
            #expect(page.events.isEmpty && page.scanned == 1 && page.head == 1)
            let (okStatus, okBody) = try await get("types=A,Some.Type_v2-x")
            #expect(okStatus == 200)
            #expect(try EventJSON.decode(EventFeedPage.self, from: Data(okBody.utf8)).events.map(\.eventType) == ["A"])
        }
    }

    @Test("the query names the types sorted; a feed without types names none; a page's URL carries them")
    func query() {
        let feed = EmbeddedFeed(source: "p", baseURL: "http://127.0.0.1:1", internalToken: "t")
        #expect(feed.eventTypes == nil)
        #expect(feed.only(["UserNotified", "A", "TourViewed"]).eventTypes == ["A", "TourViewed", "UserNotified"])
        #expect(feed.only(["b", "a"]) == EmbeddedFeed(source: "p", baseURL: "http://127.0.0.1:1", internalToken: "t", eventTypes: ["a", "b"]))
        #expect(feed.pageURL(after: 7, limit: 500, wait: .seconds(1)) == "http://127.0.0.1:1/v1/internal/events?after=7&limit=500&wait=1.0")
        #expect(feed.only(["UserNotified", "A"]).pageURL(after: 0, limit: 1_000, wait: .milliseconds(250))
                    == "http://127.0.0.1:1/v1/internal/events?after=0&limit=1000&wait=0.25&types=A,UserNotified")
    }
}
