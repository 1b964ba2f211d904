import AsyncHTTPClient
import Contracts
import EventSourcing
import Foundation
import Kafka
import Logging
import Messaging
import Metrics
import ServiceLifecycle

extension NotificationHub {
    /// Reads notifications (and erasures) until graceful shutdown, then ends every open stream.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.followNotifications() }
                group.addTask { await self.followErasures() }
            }
        }
        closeAll()
    }

    // MARK: - Notifications

    private func followNotifications() async {
        switch configuration.transport {
        case .kafka(let brokers, let properties):
            // A group of its own per hub instance: every gateway reads every notification, from the earliest offset,
            // and commits nothing (its buffers live in memory, so a restart must read again anyway).
            let group = "gateway-notifications-\(UUID.v4().uuidString.lowercased())"
            let overrides = ["auto.offset.reset": "earliest", "enable.auto.commit": "false"]
            guard let consumer = await makeConsumer(brokers: brokers, properties: properties.merging(overrides) { _, fixed in fixed },
                                                    group: group, topic: Topic.notifications.name) else { return }
            await consume(KafkaEventSource(consumer: consumer, logger: logger), from: [:], tracksCatchUp: true,
                          isAssigned: { (try? consumer.assignment().isEmpty == false) ?? false }, handle: receiveNotification)
        case .embedded(let producers, _):
            guard !producers.isEmpty else {
                setLive()
                return
            }
            // Only notifications: a producer's other events (tour views, position updates, …) are not sent, and do not end
            // the long poll — which would cancel and re-send the polls of every other producer.
            await consume(EmbeddedFeedSource(feeds: producers.map { $0.only([UserNotified.eventType]) }), from: [:], tracksCatchUp: true,
                          isAssigned: { true },
                          handle: receiveNotification)
        }
    }

    private func receiveNotification(_ event: PublishedEvent) {
        guard event.eventType == UserNotified.eventType else { return }
        // One unreadable notification must not stop every user's stream: it is logged and counted, never applied.
        guard event.schemaVersion == UserNotified.schemaVersion else {
            reportUnreadable(event, reason: "schema version \(event.schemaVersion), expected \(UserNotified.schemaVersion)")
            return
        }
        do {
            deliver(try event.decode(UserNotified.self))
        } catch {
            reportUnreadable(event, reason: "\(error)")
        }
    }

    private func reportUnreadable(_ event: PublishedEvent, reason: String) {
        logger.error("notification cannot be read; not delivered", metadata: [
            "source": "\(event.source)", "event": "\(event.eventID)", "stream": "\(event.streamID)", "reason": "\(reason)"])
        Counter(label: "waypoint_notification_unreadable_total").increment()
    }

    // MARK: - Erasures

    /// `UserErased` from `waypoint.auth`, from now on only (reading auth's whole history at every start would cost more
    /// than it saves: an erased user can no longer sign in to read what an older notification says).
    private func followErasures() async {
        switch configuration.transport {
        case .kafka(let brokers, let properties):
            let group = "gateway-erasures-\(UUID.v4().uuidString.lowercased())"
            let overrides = ["auto.offset.reset": "latest", "enable.auto.commit": "false"]
            guard let consumer = await makeConsumer(brokers: brokers, properties: properties.merging(overrides) { _, fixed in fixed },
                                                    group: group, topic: Topic.auth.name) else { return }
            await consume(KafkaEventSource(consumer: consumer, logger: logger), from: [:], tracksCatchUp: false, isAssigned: { true },
                          handle: receiveErasure)
        case .embedded(_, let auth?):
            guard let head = await headPosition(of: auth) else { return }
            state.withLock { $0.followsErasures = true }
            await consume(EmbeddedFeedSource(feeds: [auth.only([UserErased.eventType])]), from: [auth.source: head], tracksCatchUp: false,
                          isAssigned: { true },
                          handle: receiveErasure)
        case .embedded(_, nil):
            return
        }
    }

    private func receiveErasure(_ event: PublishedEvent) {
        guard event.eventType == UserErased.eventType, let erased = try? event.decode(UserErased.self) else { return }
        erase(userID: erased.userId)
    }

    /// The head of a producer's feed (`after` past any position answers an empty page with the head), retried until
    /// the producer answers; `nil` when cancelled.
    private func headPosition(of feed: EmbeddedFeed) async -> Int64? {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                var request = HTTPClientRequest(url: "\(feed.baseURL)/v1/internal/events?after=\(Int64.max)&limit=1&wait=0")
                request.headers.add(name: "Authorization", value: "Bearer \(feed.internalToken)")
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
                let body = try await response.body.collect(upTo: 1 << 20)
                guard response.status == .ok else { throw EmbeddedFeedError.unexpectedStatus(source: feed.source,
                                                                                               status: Int(response.status.code), body: "") }
                return try EventJSON.decode(EventFeedPage.self, from: Data(buffer: body)).head
            } catch {
                logger.warning("cannot read the head of a feed; retrying", metadata: ["source": "\(feed.source)", "error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        return nil
    }

    // MARK: - The loop

    private func makeConsumer(brokers: String, properties: [String: String], group: String, topic: String) async -> KafkaConsumer? {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                return try KafkaConsumer(configuration: KafkaConfiguration(bootstrapServers: brokers, clientID: "gateway", properties: properties),
                                         groupID: group, topics: [topic], logger: logger)
            } catch {
                logger.error("cannot create the Kafka consumer; retrying", metadata: ["topic": "\(topic)", "error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        return nil
    }

    /// Polls `source` until cancelled, handing every event to `handle`; transport errors are retried with exponential
    /// back-off (100 ms → 5 s). With `tracksCatchUp`, the hub turns live at the first empty poll once `isAssigned`
    /// (while catching up, polls wait at most 100 ms, so "empty" means "nothing more", not a long poll's timeout).
    private func consume(_ source: some EventSource, from start: [String: Int64], tracksCatchUp: Bool,
                         isAssigned: @Sendable () -> Bool, handle: (PublishedEvent) -> Void) async {
        var positions = start
        var caughtUp = false
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                let timeout = caughtUp ? configuration.pollTimeout : .milliseconds(100)
                let events = try await source.next(maxEvents: 500, timeout: timeout, positions: positions)
                for incoming in events {
                    handle(incoming.event)
                    if case .feed(let position) = incoming.receipt { positions[incoming.event.source] = position }
                }
                try await source.acknowledge(events)
                backoff = .milliseconds(100)
                if !caughtUp, events.isEmpty, isAssigned() {
                    caughtUp = true
                }
                if tracksCatchUp, caughtUp { setLive() }
            } catch {
                if Task.isCancelled { break }
                if tracksCatchUp { setSourceError("\(error)") }
                logger.warning("notification source unavailable; retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
        }
        await source.close()
    }

    private func setLive() {
        state.withLock { $0.status = .live }
    }

    private func setSourceError(_ error: String) {
        state.withLock { state in
            switch state.status {
            case .starting: state.status = .starting(lastError: error)
            case .live, .retrying: state.status = .retrying(lastError: error)
            }
        }
    }
}
