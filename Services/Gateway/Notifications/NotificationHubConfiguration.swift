import Contracts
import Foundation
import Messaging
import ServiceKit

/// How the gateway's ``NotificationHub`` reads notifications and how much it keeps: read once at start-up.
///
/// | key | meaning | default |
/// |---|---|---|
/// | `WAYPOINT_KAFKA_BROKERS` | read `waypoint.notifications` from Kafka (else the producers' embedded feeds) | unset |
/// | `WAYPOINT_NOTIFICATIONS_PRODUCERS` | comma-separated services whose embedded feed carries notifications | `tour-management,path-review,navigation` |
/// | `WAYPOINT_<PRODUCER>_URL` | base URL of each producer (``ServiceEndpoints``), e.g. `WAYPOINT_TOUR_MANAGEMENT_URL` | its default port |
/// | `WAYPOINT_AUTH_URL` | base URL of `auth`, whose feed tells of erased users (embedded transport) | `http://127.0.0.1:8081` |
/// | `WAYPOINT_INTERNAL_TOKEN` | token of the producers' `/v1/internal/events` (passed in from ``ServiceConfiguration``) | unset |
/// | `WAYPOINT_NOTIFICATIONS_BUFFER_PER_USER` | newest notifications kept per user for `Last-Event-ID` resume | 100 |
/// | `WAYPOINT_NOTIFICATIONS_RETENTION_HOURS` | notifications older than this (by `occurredAt`) are not kept | 168 (7 days) |
/// | `WAYPOINT_NOTIFICATIONS_MAX_USERS` | users with a buffer; the least recently active user's buffer goes first | 50000 |
/// | `WAYPOINT_NOTIFICATIONS_MAX_BUFFERED` | notifications buffered over all users (≈ 1 KiB each); same eviction | 100000 |
/// | `WAYPOINT_NOTIFICATIONS_MAX_STREAMS_PER_USER` | open streams per user; a new one closes the oldest | 5 |
/// | `WAYPOINT_NOTIFICATIONS_KEEPALIVE_SECONDS` | interval of the `: keep-alive` comment on idle streams | 15 |
///
/// Every key also has the gateway-specific spelling `WAYPOINT_GATEWAY_<KEY>`, which wins.
public struct NotificationHubConfiguration: Sendable {
    /// Where notifications come from.
    public enum Transport: Sendable {
        /// `waypoint.notifications` (and `waypoint.auth` for erasures) on Kafka: a consumer group of its own per hub
        /// instance, reading from the earliest offset, committing nothing.
        case kafka(brokers: String, properties: [String: String])
        /// Each producer's embedded feed from position 0 (keeping only `UserNotified`), and `auth`'s feed from its
        /// head (erasures only) when `auth` is given.
        case embedded(producers: [EmbeddedFeed], auth: EmbeddedFeed?)
    }

    public var transport: Transport
    /// Newest notifications kept per user (default 100).
    public var perUserLimit: Int
    /// Notifications whose `occurredAt` is older than this are neither kept nor replayed (default 7 days).
    public var retention: Duration
    /// Users with a buffer at most; beyond it the least recently active user's buffer is dropped (default 50,000).
    public var maxUsers: Int
    /// Notifications buffered over all users at most (≈ 1 KiB each, so the default bounds the buffers near 100 MiB);
    /// beyond it the least recently active user's buffer is dropped (default 100,000).
    public var maxNotifications: Int
    /// Streams one user may hold open; a new one closes their oldest (default 5).
    public var maxStreamsPerUser: Int
    /// Interval of the keep-alive comment on an idle stream (default 15 s).
    public var keepAlive: Duration
    /// Notifications queued for one slow stream before the hub closes it (the client resumes with `Last-Event-ID`).
    public var streamQueueLimit: Int
    /// Longest wait of one poll once caught up: the embedded feed's long poll (default 10 s) or the Kafka poll (1 s).
    public var pollTimeout: Duration

    /// Creates a configuration; the defaults are those of the table above.
    public init(transport: Transport, perUserLimit: Int = 100, retention: Duration = .seconds(7 * 86_400), maxUsers: Int = 50_000,
                maxNotifications: Int = 100_000, maxStreamsPerUser: Int = 5, keepAlive: Duration = .seconds(15), streamQueueLimit: Int = 256,
                pollTimeout: Duration? = nil) {
        self.transport = transport
        self.perUserLimit = perUserLimit
        self.retention = retention
        self.maxUsers = maxUsers
        self.maxNotifications = maxNotifications
        self.maxStreamsPerUser = maxStreamsPerUser
        self.keepAlive = keepAlive
        self.streamQueueLimit = streamQueueLimit
        if let pollTimeout {
            self.pollTimeout = pollTimeout
        } else if case .kafka = transport {
            self.pollTimeout = .seconds(1)
        } else {
            self.pollTimeout = .seconds(10)
        }
    }

    /// Reads the configuration of `serviceName` (the gateway) from the environment.
    ///
    /// - Parameter internalToken: the internal token the producers' feeds require (``ServiceConfiguration/internalToken``).
    /// - Throws: ``ConfigurationError`` naming a key whose value is out of range or not a URL.
    public static func fromEnvironment(serviceName: String = "gateway", internalToken: String?,
                                       environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> NotificationHubConfiguration {
        let reader = EnvironmentReader(serviceName: serviceName, environment: environment)
        let transport: Transport
        if let (_, brokers) = reader.value("KAFKA_BROKERS") {
            transport = .kafka(brokers: brokers, properties: [:])
        } else {
            // `none`: no producer runs here (e.g. the launcher started only auth and the gateway).
            let listed = reader.string("NOTIFICATIONS_PRODUCERS", default: "tour-management,path-review,navigation")
            let producers = listed.lowercased() == "none" ? [] : listed
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            // The producers named here are meant to exist: their local default ports apply, as for the gateway's routes.
            let endpoints = try ServiceEndpoints.fromEnvironment(serviceName: serviceName, services: producers + ["auth"],
                                                                 defaults: ServiceEndpoints.localBaseURLs, environment: environment)
            let feeds = try producers.map { producer in
                guard let url = endpoints.baseURL(of: producer) else {
                    throw ConfigurationError(key: "WAYPOINT_\(ServiceEndpoints.keySuffix(for: producer))", value: "",
                                             expected: "the base URL of \(producer), whose feed carries notifications")
                }
                return EmbeddedFeed(source: producer, baseURL: url.absoluteString, internalToken: internalToken ?? "")
            }
            let auth = endpoints.baseURL(of: "auth").map { EmbeddedFeed(source: "auth", baseURL: $0.absoluteString,
                                                                         internalToken: internalToken ?? "") }
            transport = .embedded(producers: feeds, auth: auth)
        }
        return NotificationHubConfiguration(
            transport: transport,
            perUserLimit: try reader.integer("NOTIFICATIONS_BUFFER_PER_USER", default: 100, in: 1...10_000),
            retention: .seconds(try reader.integer("NOTIFICATIONS_RETENTION_HOURS", default: 168, in: 1...8_760) * 3_600),
            maxUsers: try reader.integer("NOTIFICATIONS_MAX_USERS", default: 50_000, in: 1...10_000_000),
            maxNotifications: try reader.integer("NOTIFICATIONS_MAX_BUFFERED", default: 100_000, in: 1...100_000_000),
            maxStreamsPerUser: try reader.integer("NOTIFICATIONS_MAX_STREAMS_PER_USER", default: 5, in: 1...100),
            keepAlive: try reader.seconds("NOTIFICATIONS_KEEPALIVE_SECONDS", default: .seconds(15), minimum: 0.01))
    }
}
