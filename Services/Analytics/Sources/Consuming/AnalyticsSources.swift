import AsyncHTTPClient
import Contracts
import EventSourcing
import Foundation
import Kafka
import Logging
import Messaging
import NIOCore
import Synchronization

/// An event source that knows how far behind it is (for the lag metric, readiness and a rebuild's catch-up).
protocol LagReportingSource: EventSource {
    var lag: TopicLag { get }
    /// Whether the last poll found nothing more to read (as far as the transport can tell).
    var isIdle: Bool { get }
}

/// The embedded transport for one producer, as the kernel's `EmbeddedFeedSource` (long poll of
/// `GET {producer}/v1/internal/events?after=&limit=&wait=&types=` with the internal token, resuming from the consumer's
/// stored position; `types=` names the event types analytics reads), plus the lag: it keeps the head of the last page.
final class AnalyticsFeedSource: LagReportingSource {
    let feed: EmbeddedFeed
    let lag: TopicLag
    let httpClient: HTTPClient

    private struct State {
        var head: Int64 = 0
        var pageWasFull = false
        var idle = false
    }

    private let state = Mutex(State())
    /// Past the events the producer skipped, while the stored position stays where the pages left it.
    private let cursor = FeedCursor()

    init(feed: EmbeddedFeed, lag: TopicLag, httpClient: HTTPClient = .shared) {
        self.feed = feed
        self.lag = lag
        self.httpClient = httpClient
    }

    var isIdle: Bool { state.withLock { $0.idle } }

    /// Reads up to `maxEvents` (the feed serves at most 1,000 per request: full pages are followed by the next page
    /// without waiting, so a consumer catching up applies large batches); only the first request long-polls.
    func next(maxEvents: Int, timeout: Duration, positions: [String: Int64]) async throws -> [IncomingEvent] {
        let stored = positions[feed.source] ?? 0
        var after = cursor.after(feed.source, stored: stored)
        var collected: [IncomingEvent] = []
        var wait = timeout
        var page: EventFeedPage
        var full: Bool
        repeat {
            let limit = min(max(maxEvents - collected.count, 1), 1_000)
            guard let fetched = try await fetch(after: after, limit: limit, wait: wait) else { return collected }
            page = fetched
            collected += page.events.map { IncomingEvent(event: $0, receipt: .feed(position: $0.position)) }
            after = max(page.scanned ?? after, page.events.last?.position ?? after)
            full = page.events.count >= limit
            wait = .zero
        } while full && collected.count < maxEvents
        cursor.record(feed.source, asked: stored, lastServed: collected.last?.event.position, scanned: page.scanned)
        let (head, pageWasFull) = (page.head, full)
        state.withLock {
            $0.head = head
            $0.pageWasFull = pageWasFull
            $0.idle = collected.isEmpty
        }
        if collected.isEmpty { lag.record(0) }
        return collected
    }

    /// One page; `nil` when the task was cancelled during the long poll.
    private func fetch(after: Int64, limit: Int, wait: Duration) async throws -> EventFeedPage? {
        var request = HTTPClientRequest(url: feed.pageURL(after: after, limit: limit, wait: wait))
        request.headers.add(name: "Authorization", value: "Bearer \(feed.internalToken)")
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(request, timeout: .milliseconds(Int64(wait.timeInterval * 1000) + 10_000))
        } catch where Task.isCancelled {
            return nil
        }
        let body = try await response.body.collect(upTo: 256 * 1024 * 1024)
        guard response.status == .ok else {
            throw EmbeddedFeedError.unexpectedStatus(source: feed.source, status: Int(response.status.code),
                                                     body: String(buffer: body).prefix(500).description)
        }
        return try EventJSON.decode(EventFeedPage.self, from: Data(buffer: body))
    }

    func acknowledge(_ events: [IncomingEvent]) async throws {
        guard let last = events.last?.event.position else { return }
        let (head, full) = state.withLock { ($0.head, $0.pageWasFull) }
        lag.record(full ? head - last : 0)
    }

    func close() async {}
}

/// The kernel's `KafkaEventSource` (consumer group member, offsets stored after the local commit), plus the lag from
/// librdkafka's cached high watermarks of the partitions it has read.
final class AnalyticsKafkaSource: LagReportingSource {
    let base: KafkaEventSource
    let consumer: KafkaConsumer
    let lag: TopicLag

    private struct State {
        /// Next offset to read, per partition seen.
        var offsets: [Int32: Int64] = [:]
        var idle = false
    }

    private let state = Mutex(State())

    init(consumer: KafkaConsumer, lag: TopicLag, logger: Logger) {
        self.consumer = consumer
        self.lag = lag
        base = KafkaEventSource(consumer: consumer, logger: logger)
    }

    var isIdle: Bool { state.withLock { $0.idle } }

    func next(maxEvents: Int, timeout: Duration, positions: [String: Int64]) async throws -> [IncomingEvent] {
        let events = try await base.next(maxEvents: maxEvents, timeout: timeout, positions: positions)
        state.withLock { $0.idle = events.isEmpty }
        if events.isEmpty { refreshLag(assumeIdle: true) }
        return events
    }

    func acknowledge(_ events: [IncomingEvent]) async throws {
        try await base.acknowledge(events)
        state.withLock { state in
            for event in events {
                if case .kafka(_, let partition, let offset) = event.receipt {
                    state.offsets[partition] = max(state.offsets[partition] ?? 0, offset + 1)
                }
            }
        }
        refreshLag(assumeIdle: false)
    }

    func close() async {
        await base.close()
    }

    /// Sums the partitions' lags. An empty poll with partitions assigned but none read yet means an empty topic.
    private func refreshLag(assumeIdle: Bool) {
        let offsets = state.withLock { $0.offsets }
        var total: Int64 = 0
        for (partition, next) in offsets {
            let probe = KafkaIncomingMessage(topic: lag.topic, partition: partition, offset: next - 1, key: nil, value: Data())
            total += consumer.lag(after: probe) ?? 0
        }
        if offsets.isEmpty, assumeIdle, (try? consumer.assignment().isEmpty) == false {
            lag.record(0)
        } else if !offsets.isEmpty {
            lag.record(total)
        }
    }
}
