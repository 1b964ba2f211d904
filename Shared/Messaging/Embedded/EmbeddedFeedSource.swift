import Contracts
import AsyncHTTPClient
import EventSourcing
import Foundation
import Metrics
import NIOCore
import NIOHTTP1

/// The embedded transport's consumer side: long-polls each producer's `GET /v1/internal/events?after=&limit=&wait=`
/// from the consumer's stored source positions. Durable across restarts of either side because the cursor is the
/// position stored in the consumer's own transaction, and the producer serves its durable log.
public struct EmbeddedFeedSource: EventSource {
    let feeds: [EmbeddedFeed]
    let httpClient: HTTPClient
    /// Past the events each producer skipped, while the stored positions stay where the pages left them.
    let cursor = FeedCursor()

    /// Creates a source over one or more producers' feeds.
    public init(feeds: [EmbeddedFeed], httpClient: HTTPClient = .shared) {
        self.feeds = feeds
        self.httpClient = httpClient
    }

    public func next(maxEvents: Int, timeout: Duration, positions: [String: Int64]) async throws -> [IncomingEvent] {
        try await withThrowingTaskGroup(of: [IncomingEvent].self) { group in
            for feed in feeds {
                group.addTask {
                    try await fetch(feed, stored: positions[feed.source] ?? 0, limit: maxEvents, wait: timeout)
                }
            }
            var collected: [IncomingEvent] = []
            // The first feed with events ends the wait; the others' long polls are cancelled.
            while let events = try await group.next() {
                collected += events
                if !collected.isEmpty { group.cancelAll() }
            }
            return collected
        }
    }

    public func acknowledge(_ events: [IncomingEvent]) async throws {}

    public func close() async {}

    private func fetch(_ feed: EmbeddedFeed, stored: Int64, limit: Int, wait: Duration) async throws -> [IncomingEvent] {
        let position = cursor.after(feed.source, stored: stored)
        let waitSeconds = wait.timeInterval
        var request = HTTPClientRequest(url: feed.pageURL(after: position, limit: limit, wait: wait))
        request.headers.add(name: "Authorization", value: "Bearer \(feed.internalToken)")
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(request, timeout: .milliseconds(Int64(waitSeconds * 1000) + 10_000))
        } catch where Task.isCancelled {
            return []
        }
        let body = try await response.body.collect(upTo: 256 * 1024 * 1024)
        guard response.status == .ok else {
            throw EmbeddedFeedError.unexpectedStatus(source: feed.source, status: Int(response.status.code),
                                                     body: String(buffer: body).prefix(500).description)
        }
        let page = try EventJSON.decode(EventFeedPage.self, from: Data(buffer: body))
        cursor.record(feed.source, asked: stored, lastServed: page.events.last?.position, scanned: page.scanned)
        let reached = page.events.last?.position ?? position
        Gauge(label: "waypoint_consumer_lag_events", dimensions: [("source", feed.source), ("transport", "embedded")])
            .record(Double(max(0, page.head - reached)))
        return page.events.map { IncomingEvent(event: $0, receipt: .feed(position: $0.position)) }
    }
}

/// Failures of the embedded transport.
public enum EmbeddedFeedError: Error, Sendable, Hashable {
    /// The producer answered something other than 200.
    case unexpectedStatus(source: String, status: Int, body: String)
}
