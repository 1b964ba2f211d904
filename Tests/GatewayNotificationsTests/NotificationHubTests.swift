import Contracts
import Foundation
import GatewayNotifications
import Messaging
import ServiceKit
import ServiceTesting
import Synchronization
import Testing

/// The hub's memory and fan-out, without a transport: bounds per user, by age and in users; duplicates; erasure;
/// streams per user; readiness.
@Suite("gateway: the notification hub's buffers and subscribers")
struct NotificationHubTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_341_600)

    /// A clock tests move by hand.
    final class Clock: Sendable {
        private let current = Mutex(NotificationHubTests.t0)
        var now: Date { current.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    static func hub(perUserLimit: Int = 100, maxUsers: Int = 50_000, maxNotifications: Int = 100_000, maxStreams: Int = 5, retention: Duration = .seconds(7 * 86_400),
                    clock: Clock = Clock()) -> NotificationHub {
        NotificationHub(configuration: NotificationHubConfiguration(
            transport: .embedded(producers: [], auth: nil), perUserLimit: perUserLimit, retention: retention, maxUsers: maxUsers,
            maxNotifications: maxNotifications, maxStreamsPerUser: maxStreams), logger: LoopbackServer.quietLogger, now: { clock.now })
    }

    static func notification(_ user: UUID, at: Date = t0, id: UUID = .v4()) -> UserNotified {
        UserNotified(notificationId: id, userId: user, kind: .reviewReplied, title: "The guide replied to your review", body: "…",
                     data: ["reviewId": UUID.v4().uuidString.lowercased()], occurredAt: at)
    }

    @Test("a user's buffer keeps only the newest notifications, oldest dropped first")
    func perUserLimit() {
        let hub = Self.hub(perUserLimit: 3)
        let user = UUID.v4()
        let sent = (0..<5).map { _ in Self.notification(user) }
        for notification in sent { hub.deliver(notification) }
        let stream = hub.subscribe(userID: user, after: nil)
        #expect(stream.backlog == Array(sent.suffix(3)))
        #expect(hub.bufferedCounts.notifications == 3)
        // The evicted id is unknown now: the client gets everything held, and dedupes by id.
        #expect(hub.subscribe(userID: user, after: sent[0].notificationId).backlog == Array(sent.suffix(3)))
        #expect(hub.subscribe(userID: user, after: sent[3].notificationId).backlog == [sent[4]])
    }

    @Test("beyond the user limit the least recently active user's buffer goes; opening a stream counts as activity")
    func leastRecentlyActiveUserEvicted() {
        let hub = Self.hub(maxUsers: 2)
        let (a, b, c) = (UUID.v4(), UUID.v4(), UUID.v4())
        hub.deliver(Self.notification(a))
        hub.deliver(Self.notification(b))
        _ = hub.subscribe(userID: a, after: nil)  // a is now more recent than b
        hub.deliver(Self.notification(c))
        #expect(hub.bufferedCounts.users == 2)
        #expect(hub.subscribe(userID: b, after: nil).backlog.isEmpty)
        #expect(hub.subscribe(userID: a, after: nil).backlog.count == 1)
        #expect(hub.subscribe(userID: c, after: nil).backlog.count == 1)
    }

    @Test("beyond the total notification limit the least recently active users' buffers go first")
    func totalLimit() {
        let hub = Self.hub(maxNotifications: 4)
        let (a, b, c) = (UUID.v4(), UUID.v4(), UUID.v4())
        for _ in 0..<2 { hub.deliver(Self.notification(a)) }
        for _ in 0..<2 { hub.deliver(Self.notification(b)) }
        hub.deliver(Self.notification(c))  // 5 > 4: a, the least recently active, goes
        #expect(hub.bufferedCounts.notifications == 3)
        #expect(hub.bufferedCounts.users == 2)
        #expect(hub.subscribe(userID: a, after: nil).backlog.isEmpty)
        // A single user past the total keeps their newest.
        let solo = Self.hub(maxNotifications: 2)
        let sent = (0..<3).map { _ in Self.notification(a) }
        for notification in sent { solo.deliver(notification) }
        #expect(solo.subscribe(userID: a, after: nil).backlog == Array(sent.suffix(2)))
    }

    @Test("notifications older than the retention are neither kept nor replayed")
    func retention() {
        let clock = Clock()
        let hub = Self.hub(retention: .seconds(3_600), clock: clock)
        let user = UUID.v4()
        hub.deliver(Self.notification(user, at: Self.t0.addingTimeInterval(-7_200)))  // already too old
        hub.deliver(Self.notification(user, at: Self.t0))
        #expect(hub.subscribe(userID: user, after: nil).backlog.count == 1)
        clock.advance(3_601)
        #expect(hub.subscribe(userID: user, after: nil).backlog.isEmpty)
        #expect(hub.bufferedCounts.users == 0)
    }

    @Test("a redelivered notification (same id) is buffered and streamed once")
    func duplicates() async throws {
        let hub = Self.hub()
        let user = UUID.v4()
        let stream = hub.subscribe(userID: user, after: nil)
        let notification = Self.notification(user)
        hub.deliver(notification)
        hub.deliver(notification)
        stream.close()
        var live: [NotificationSubscription.Event] = []
        for await event in stream.events { live.append(event) }
        #expect(live == [.notification(notification)])
        #expect(hub.bufferedCounts.notifications == 1)
    }

    @Test("only the recipient's streams get a notification")
    func fanOutToRecipientOnly() async {
        let hub = Self.hub()
        let (alice, bob) = (UUID.v4(), UUID.v4())
        let aliceStreams = [hub.subscribe(userID: alice, after: nil), hub.subscribe(userID: alice, after: nil)]
        let bobStream = hub.subscribe(userID: bob, after: nil)
        let notification = Self.notification(alice)
        hub.deliver(notification)
        for stream in aliceStreams + [bobStream] { stream.close() }
        for stream in aliceStreams {
            var events: [NotificationSubscription.Event] = []
            for await event in stream.events { events.append(event) }
            #expect(events == [.notification(notification)])
        }
        var bobEvents = 0
        for await _ in bobStream.events { bobEvents += 1 }
        #expect(bobEvents == 0)
    }

    @Test("a user opening more streams than allowed closes their oldest")
    func streamsPerUser() async throws {
        let hub = Self.hub(maxStreams: 2)
        let user = UUID.v4()
        let first = hub.subscribe(userID: user, after: nil)
        _ = hub.subscribe(userID: user, after: nil)
        let third = hub.subscribe(userID: user, after: nil)
        var firstEvents = 0
        for await _ in first.events { firstEvents += 1 }  // ends: it was closed
        #expect(firstEvents == 0)
        #expect(try await eventually { hub.subscriberCount == 2 })
        third.close()
        #expect(try await eventually { hub.subscriberCount == 1 })
    }

    @Test("erasing a user drops their buffer, ends their streams, and keeps later notifications for them out")
    func erasure() async {
        let hub = Self.hub()
        let user = UUID.v4()
        hub.deliver(Self.notification(user))
        let stream = hub.subscribe(userID: user, after: nil)
        hub.erase(userID: user)
        var events = 0
        for await _ in stream.events { events += 1 }
        #expect(events == 0)
        hub.deliver(Self.notification(user))  // e.g. read again from a feed replayed from its start
        #expect(hub.bufferedCounts.users == 0)
        #expect(hub.subscribe(userID: user, after: nil).backlog.isEmpty)
    }

    @Test("readiness: not ready until caught up")
    func readiness() async {
        let hub = Self.hub()
        #expect(hub.status == .starting(lastError: nil))
        #expect(await hub.readinessCheck()().isReady == false)
    }

    @Test("configuration from the environment: defaults, producers, Kafka, bad values")
    func configuration() throws {
        let defaults = try NotificationHubConfiguration.fromEnvironment(internalToken: "t", environment: [:])
        #expect(defaults.perUserLimit == 100 && defaults.maxUsers == 50_000 && defaults.maxStreamsPerUser == 5)
        #expect(defaults.retention == .seconds(7 * 86_400))
        #expect(defaults.keepAlive == .seconds(15))
        guard case .embedded(let producers, let auth) = defaults.transport else {
            Issue.record("expected the embedded transport")
            return
        }
        #expect(producers == [EmbeddedFeed(source: "tour-management", baseURL: "http://127.0.0.1:8082", internalToken: "t"),
                              EmbeddedFeed(source: "path-review", baseURL: "http://127.0.0.1:8083", internalToken: "t"),
                              EmbeddedFeed(source: "navigation", baseURL: "http://127.0.0.1:8084", internalToken: "t")])
        #expect(auth?.baseURL == "http://127.0.0.1:8081")

        let custom = try NotificationHubConfiguration.fromEnvironment(internalToken: "t", environment: [
            "WAYPOINT_NOTIFICATIONS_PRODUCERS": "tour-management, navigation",
            "WAYPOINT_NAVIGATION_URL": "http://127.0.0.1:8084/",
            "WAYPOINT_GATEWAY_NOTIFICATIONS_KEEPALIVE_SECONDS": "2.5",
            "WAYPOINT_NOTIFICATIONS_BUFFER_PER_USER": "20",
        ])
        #expect(custom.keepAlive == .milliseconds(2_500))
        #expect(custom.perUserLimit == 20)
        guard case .embedded(let feeds, _) = custom.transport else {
            Issue.record("expected the embedded transport")
            return
        }
        #expect(feeds.map(\.source) == ["tour-management", "navigation"])
        #expect(feeds.last?.baseURL == "http://127.0.0.1:8084")

        let kafka = try NotificationHubConfiguration.fromEnvironment(internalToken: nil, environment: ["WAYPOINT_KAFKA_BROKERS": "k:9092"])
        guard case .kafka(let brokers, _) = kafka.transport else {
            Issue.record("expected Kafka")
            return
        }
        #expect(brokers == "k:9092")
        // A producer named alone (navigation) defaults to its local port; a name no service has is an error.
        let navigation = try NotificationHubConfiguration.fromEnvironment(internalToken: nil, environment: ["WAYPOINT_NOTIFICATIONS_PRODUCERS": "navigation"])
        if case .embedded(let producers, _) = navigation.transport {
            #expect(producers.map(\.baseURL) == ["http://127.0.0.1:8084"])
        } else {
            Issue.record("expected the embedded transport")
        }
        #expect(throws: ConfigurationError.self) {
            try NotificationHubConfiguration.fromEnvironment(internalToken: nil, environment: ["WAYPOINT_NOTIFICATIONS_PRODUCERS": "no-such-service"])
        }
        let none = try NotificationHubConfiguration.fromEnvironment(internalToken: nil, environment: ["WAYPOINT_GATEWAY_NOTIFICATIONS_PRODUCERS": "none"])
        if case .embedded(let producers, _) = none.transport { #expect(producers.isEmpty) } else { Issue.record("expected embedded") }
        #expect(throws: ConfigurationError.self) {
            try NotificationHubConfiguration.fromEnvironment(internalToken: nil, environment: ["WAYPOINT_NOTIFICATIONS_MAX_USERS": "0"])
        }
    }
}
