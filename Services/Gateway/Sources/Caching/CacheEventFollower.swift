import AsyncHTTPClient
import Contracts
import EventSourcing
import Foundation
import Kafka
import Logging
import Messaging
import ServiceLifecycle
import Synchronization

/// Keeps the gateway's cache true to tour-management: follows its events (`waypoint.tours` on Kafka, or its embedded
/// feed) from now on — the cache is empty at start — and purges the tags each event changes
/// (``CatalogueCacheTags/changed(byEventType:tourId:)``) at the event's log position, so a change that did not go
/// through this gateway (another gateway, a scheduled job, a consumer) leaves the cache within the feed's delay.
///
/// While it is not following (starting, or its source unreachable) the cache stores nothing and serves only misses:
/// changes could go unseen, so nothing may be kept. An event type it does not know purges nothing; a known one whose
/// payload cannot be read purges everything of the producer.
public final class CacheEventFollower: Service, Sendable {
    /// Where the events come from.
    public enum Transport: Sendable {
        /// `waypoint.tours` on Kafka: a consumer group of its own per gateway instance, from the latest offset,
        /// committing nothing.
        case kafka(brokers: String, properties: [String: String])
        /// The producer's embedded feed (`/v1/internal/events`), from its head.
        case embedded(EmbeddedFeed)
    }

    /// Where it stands.
    public enum Status: Sendable, Hashable {
        /// Not following yet: the cache stores nothing.
        case starting
        /// Following: the cache stores.
        case live
        /// Its source is unreachable: the cache was emptied and stores nothing until it follows again.
        case retrying(lastError: String)
    }

    /// The producer whose answers are cached and whose events are followed.
    public static let producer = "tour-management"

    let cache: EdgeCache
    let transport: Transport
    /// Longest wait of one poll once live (the embedded feed's long poll; a Kafka poll).
    let pollTimeout: Duration
    let logger: Logger
    private let state = Mutex(Status.starting)

    /// A follower of `transport` for `cache`; the cache stores nothing from now until the follower is live.
    public init(cache: EdgeCache, transport: Transport, pollTimeout: Duration? = nil, logger: Logger) {
        self.cache = cache
        self.transport = transport
        self.logger = logger
        if let pollTimeout {
            self.pollTimeout = pollTimeout
        } else if case .kafka = transport {
            self.pollTimeout = .seconds(1)
        } else {
            self.pollTimeout = .seconds(5)
        }
        cache.stopStoring(starting: true)
    }

    /// Where it stands.
    public var status: Status { state.withLock { $0 } }

    /// Follows until graceful shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.follow() }
    }

    private func follow() async {
        switch transport {
        case .kafka(let brokers, let properties):
            let group = "gateway-cache-\(UUID.v4().uuidString.lowercased())"
            let overrides = ["auto.offset.reset": "latest", "enable.auto.commit": "false"]
            guard let consumer = await retrying("create the Kafka consumer", {
                try KafkaConsumer(configuration: KafkaConfiguration(bootstrapServers: brokers, clientID: "gateway-cache",
                                                                    properties: properties.merging(overrides) { _, fixed in fixed }),
                                  groupID: group, topics: [Topic.tours.name], logger: self.logger)
            }) else { return }
            // Live once partitions are assigned (reading starts at their end): events before that are not needed, the
            // cache being empty.
            await consume(KafkaEventSource(consumer: consumer, logger: logger), from: [:]) {
                (try? consumer.assignment().isEmpty == false) ?? false
            }
        case .embedded(let feed):
            guard let head = await retrying("read the head of the feed", { try await Self.head(of: feed) }) else { return }
            // Only the types that purge something (not the views, progress, drafts, … of the same feed).
            await consume(EmbeddedFeedSource(feeds: [feed.only(CatalogueCacheTags.changingTypes)]), from: [feed.source: head]) { true }
        }
    }

    /// Polls until cancelled, purging what each event changed. Not live until `isFollowing` holds after a successful
    /// poll (twice in a row, so a Kafka consumer's start offset is settled); any failure empties the cache and stops
    /// storing until then again.
    private func consume(_ source: some EventSource, from start: [String: Int64], isFollowing: @Sendable () -> Bool) async {
        var positions = start
        var following = 0
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                let live = status == .live
                let events = try await source.next(maxEvents: 500, timeout: live ? pollTimeout : .milliseconds(100), positions: positions)
                for incoming in events {
                    apply(incoming.event)
                    if case .feed(let position) = incoming.receipt { positions[incoming.event.source] = position }
                }
                try await source.acknowledge(events)
                backoff = .milliseconds(100)
                following = isFollowing() ? following + 1 : 0
                if following >= 2, !live {
                    state.withLock { $0 = .live }
                    cache.resumeStoring()
                    logger.info("cache follows tour-management's events; storing answers")
                } else if following == 0, live {
                    lost("partitions revoked")
                }
            } catch {
                if Task.isCancelled { break }
                following = 0
                lost("\(error)")
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        await source.close()
    }

    private func lost(_ reason: String) {
        let wasLive = state.withLock { state -> Bool in
            defer { state = .retrying(lastError: reason) }
            return state == .live
        }
        cache.stopStoring()
        if wasLive {
            logger.warning("cache lost tour-management's events; emptied, storing nothing until they follow again",
                           metadata: ["error": "\(reason)"])
        }
    }

    /// Purges what `event` changed, at its log position.
    func apply(_ event: PublishedEvent) {
        guard event.source == Self.producer else { return }
        guard !CatalogueCacheTags.changed(byEventType: event.eventType, tourId: nil).isEmpty else { return }
        let tags: [String]
        if let tourId = (try? event.decode(TourReference.self))?.tourId {
            tags = CatalogueCacheTags.changed(byEventType: event.eventType, tourId: tourId)
        } else {
            logger.error("event without a readable tourId; purging every tour-management answer", metadata: [
                "event": "\(event.eventID)", "type": "\(event.eventType)", "position": "\(event.position)"])
            tags = ["*"]
        }
        cache.purge(tags: tags, position: event.position, upstream: Self.producer)
        cache.invalidationMetrics.lag?.record(max(0, Date().timeIntervalSince(event.recordedAt)))
    }

    /// The tour an event is about (every mapped event has one).
    private struct TourReference: Decodable {
        var tourId: UUID
    }

    /// `body` until it succeeds, retried with back-off (100 ms → 5 s); `nil` when cancelled.
    private func retrying<T>(_ what: String, _ body: () async throws -> T) async -> T? {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                return try await body()
            } catch {
                state.withLock { $0 = .retrying(lastError: "\(error)") }
                logger.warning("cache follower cannot \(what); retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        return nil
    }

    /// The head of a producer's feed (`after` past any position answers an empty page with the head).
    static func head(of feed: EmbeddedFeed) async throws -> Int64 {
        var request = HTTPClientRequest(url: "\(feed.baseURL)/v1/internal/events?after=\(Int64.max)&limit=1&wait=0")
        request.headers.add(name: "Authorization", value: "Bearer \(feed.internalToken)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else {
            throw EmbeddedFeedError.unexpectedStatus(source: feed.source, status: Int(response.status.code), body: String(buffer: body))
        }
        return try EventJSON.decode(EventFeedPage.self, from: Data(buffer: body)).head
    }
}
