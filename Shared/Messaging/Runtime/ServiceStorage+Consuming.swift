import Contracts
import EventSourcing
import Foundation
import Kafka
import Logging
import ServiceKit
import ServiceLifecycle

// MARK: - Where the other services are

/// Base URLs of the services a service talks to over HTTP: producers whose embedded feed it pulls
/// (`GET {url}/v1/internal/events`) and owners it asks synchronous questions (e.g. `auth`'s public profiles).
///
/// | key | meaning | default |
/// |---|---|---|
/// | `WAYPOINT_AUTH_URL` | base URL of `auth` | `http://127.0.0.1:8081` |
/// | `WAYPOINT_TOUR_MANAGEMENT_URL` | base URL of `tour-management` | `http://127.0.0.1:8082` |
/// | `WAYPOINT_<PRODUCER>_URL` | base URL of any other producing service (`PATH_REVIEW`, `NAVIGATION`, `RECORD_TRIP`) | unset |
///
/// The gateway, which routes to every service, starts from ``localBaseURLs`` instead: path-review `:8083`, navigation
/// `:8084`, record-trip `:8085`, analytics `:8086` (`WAYPOINT_ANALYTICS_URL`).
///
/// Like every key, each has the consuming service's own spelling, which wins: `WAYPOINT_TOUR_MANAGEMENT_AUTH_URL` over
/// `WAYPOINT_AUTH_URL` for `tour-management`. Values are absolute `http`/`https` URLs; a trailing `/` is dropped.
public struct ServiceEndpoints: Sendable, Hashable {
    /// Base URLs by service name (`auth`, `tour-management`, …), without a trailing slash.
    public var baseURLs: [String: URL]

    /// The ports the services listen on by default (`swift run auth` is 8081, `swift run tour-management` 8082).
    public static let defaultBaseURLs: [String: URL] = [
        "auth": URL(string: "http://127.0.0.1:8081")!,
        "tour-management": URL(string: "http://127.0.0.1:8082")!,
    ]

    /// Every service's conventional local address: the port its executable listens on by default (path-review 8083,
    /// navigation 8084, record-trip 8085, analytics 8086 besides the two above). The gateway routes to all of them; a
    /// consumer keeps ``defaultBaseURLs`` so it does not poll feeds of services that may not exist yet.
    public static let localBaseURLs: [String: URL] = defaultBaseURLs.merging([
        "path-review": URL(string: "http://127.0.0.1:8083")!,
        "navigation": URL(string: "http://127.0.0.1:8084")!,
        "record-trip": URL(string: "http://127.0.0.1:8085")!,
        "analytics": URL(string: "http://127.0.0.1:8086")!,
    ]) { current, _ in current }

    /// Creates the endpoints; by default the services' default local ports.
    public init(baseURLs: [String: URL] = ServiceEndpoints.defaultBaseURLs) {
        self.baseURLs = baseURLs.mapValues(Self.normalized)
    }

    /// The base URL of `service`, e.g. `http://127.0.0.1:8081` for `auth`; `nil` when neither configured nor defaulted.
    public func baseURL(of service: String) -> URL? {
        baseURLs[service]
    }

    /// The key suffix naming `service`'s URL, e.g. `AUTH_URL` (read as `WAYPOINT_AUTH_URL`).
    public static func keySuffix(for service: String) -> String {
        "\(EnvironmentReader.segment(for: service))_URL"
    }

    /// Reads the base URLs of `services` (default: every producing service) as configured for `serviceName`, starting
    /// from `defaults` (``defaultBaseURLs``; the gateway passes ``localBaseURLs``).
    /// - Throws: ``ConfigurationError`` naming the key whose value is not an absolute http(s) URL.
    public static func fromEnvironment(
        serviceName: String,
        services: [String] = Topic.allCases.compactMap(\.producingService),
        defaults: [String: URL] = ServiceEndpoints.defaultBaseURLs,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ServiceEndpoints {
        let reader = EnvironmentReader(serviceName: serviceName, environment: environment)
        var urls = defaults
        for service in services {
            guard let (key, raw) = reader.value(keySuffix(for: service)) else { continue }
            guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
            else {
                throw ConfigurationError(key: key, value: raw, expected: "an absolute http or https base URL, e.g. http://127.0.0.1:8081")
            }
            urls[service] = url
        }
        return ServiceEndpoints(baseURLs: urls)
    }

    private static func normalized(_ url: URL) -> URL {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text) ?? url
    }
}

// MARK: - A running consumer, whatever its transport and backend

/// A consumer of another service's topic as a service runs it: a ``ConsumerRunner`` over whichever transport and store
/// the configuration chose, with its status for readiness and tests.
public protocol ConsumerService: Service {
    /// The consumer's name (its handler's), unique within the service.
    var name: String { get }
    /// Where the consumer stands.
    var status: ConsumerStatus { get }
    /// Events this instance applied (redeliveries it skipped do not count).
    var appliedEvents: Int { get }
}

extension ConsumerRunner: ConsumerService {
    public var name: String { target.name }
}

extension ConsumerService {
    /// The readiness check of this consumer: not ready while starting and once it stopped on an event it cannot apply.
    ///
    /// - Parameter transportErrorsMakeUnready: whether an unreachable producer or broker also makes the service not
    ///   ready. Off by default: the consumer retries by itself, the service keeps serving what it has, and taking every
    ///   consumer of a producer out of rotation while that producer is down would only spread the outage. The problem is
    ///   still logged (warning, every retry) and visible in `status` and the lag gauge.
    public func readinessCheck(transportErrorsMakeUnready: Bool = false) -> Readiness.Check {
        { [self] in
            switch status {
            case .starting: .notReady("consumer \(name) is starting")
            case .failed(let reason): .notReady(reason)
            case .running(_, nil): .ready
            case .running(_, let error?): transportErrorsMakeUnready ? .notReady("event source unavailable: \(error)") : .ready
            }
        }
    }

}

extension Readiness {
    /// Registers the consumer's ``ConsumerService/readinessCheck(transportErrorsMakeUnready:)`` as `consumer.<name>`, so a
    /// consumer stopped on a poison event turns `/health/ready` to 503 (as ``register(_:)`` does for projections).
    public func register(_ consumer: any ConsumerService, transportErrorsMakeUnready: Bool = false) {
        register("consumer.\(consumer.name)", check: consumer.readinessCheck(transportErrorsMakeUnready: transportErrorsMakeUnready))
    }
}

// MARK: - One way to consume a topic

/// How a consumer polls; the defaults suit every service.
public struct ConsumerOptions: Sendable, Hashable {
    /// Most events applied in one local transaction.
    public var batchSize: Int
    /// How long one poll waits for events: the Kafka poll timeout (keep it about a second: commits and close queue
    /// behind it) or the embedded feed's long-poll `wait` (at most 30 s; a producer's graceful shutdown waits for the
    /// long polls it holds, so keep it short there too). Default 1 s.
    public var pollTimeout: Duration
    /// The Kafka consumer group; `nil` is the consuming service's name.
    public var consumerGroup: String?

    /// Creates options.
    public init(batchSize: Int = 500, pollTimeout: Duration = .seconds(1), consumerGroup: String? = nil) {
        self.batchSize = batchSize
        self.pollTimeout = pollTimeout
        self.consumerGroup = consumerGroup
    }
}

extension ServiceStorage {
    /// The consumer of another service's `topic`, on the transport and store the configuration chose; run it as one of
    /// the application's `background` services and register it with readiness (`readiness.register(consumer)`).
    ///
    /// - On Kafka (`WAYPOINT_KAFKA_BROKERS` set): a member of the consumer group `<service>.<consumer name>` — one group
    ///   per logical consumer, so that one consumer joining or leaving never revokes another's partitions (with one
    ///   group per service, a start's later joins left navigation's `waypoint.paths` consumer without partitions for
    ///   44 s; docs/messaging.md) — with client id = service name, the runtime's Kafka properties and offsets stored
    ///   only after the local transaction committed (``KafkaConsumer``'s invariants), subscribed to `topic`; a new group
    ///   starts at the earliest offset (the consumer's dedupe records make such a replay change nothing).
    /// - On the embedded transport: long-polls the producer's feed at `producerURL` (`/v1/internal/events`, with the
    ///   internal token), resuming from the source position stored with the read model.
    ///
    /// Either way events go through `sqlite` or `postgres` (whichever backend this storage has) in one transaction
    /// with their dedupe records, so a redelivery changes nothing, and an event the handler cannot apply stops the
    /// consumer (status failed, readiness 503).
    ///
    /// - Parameters:
    ///   - topic: The topic; its producing service is the source of the events.
    ///   - producerURL: The producer's base URL (``ServiceEndpoints/baseURL(of:)``); needed on the embedded transport only.
    ///   - internalToken: The shared internal token (`WAYPOINT_INTERNAL_TOKEN`) the producer's feed requires.
    /// - Throws: ``ConfigurationError`` when the embedded transport has no producer URL; ``KafkaError`` when the
    ///   Kafka consumer cannot be created.
    public func consuming<SQLiteHandler: SQLiteEventHandler, PostgresHandler: PostgresEventHandler>(
        _ topic: Topic, producerURL: URL?, internalToken: String?, sqlite: SQLiteHandler, postgres: PostgresHandler,
        options: ConsumerOptions = ConsumerOptions(), logger: Logger
    ) throws -> any ConsumerService {
        guard let producer = topic.producingService else {
            throw ConfigurationError(key: "topic", value: topic.name, expected: "a topic with one producing service")
        }
        return try consuming(topic: topic.name, producer: producer, producerURL: producerURL, internalToken: internalToken,
                             sqlite: sqlite, postgres: postgres, options: options, logger: logger)
    }

    /// ``consuming(_:producerURL:internalToken:sqlite:postgres:options:logger:)`` for a topic given by name and its
    /// producing service's name (the `source` of its events, and the key segment of its URL).
    public func consuming<SQLiteHandler: SQLiteEventHandler, PostgresHandler: PostgresEventHandler>(
        topic: String, producer: String, producerURL: URL?, internalToken: String?, sqlite: SQLiteHandler,
        postgres: PostgresHandler, options: ConsumerOptions = ConsumerOptions(), logger: Logger
    ) throws -> any ConsumerService {
        var logger = logger
        logger[metadataKey: "consumer.topic"] = "\(topic)"
        if let brokers = settings.kafkaBrokers {
            let consumer = try KafkaConsumer(
                configuration: KafkaConfiguration(bootstrapServers: brokers, clientID: settings.serviceName,
                                                  properties: settings.kafkaProperties),
                groupID: options.consumerGroup ?? "\(settings.serviceName).\(sqlite.name)", topics: [topic], logger: logger)
            return runner(KafkaEventSource(consumer: consumer, logger: logger), sqlite: sqlite, postgres: postgres,
                          batchSize: options.batchSize, pollTimeout: options.pollTimeout, logger: logger)
        }
        guard let producerURL else {
            throw ConfigurationError(key: "WAYPOINT_\(ServiceEndpoints.keySuffix(for: producer))", value: "",
                                     expected: "the base URL of \(producer), whose feed \(settings.serviceName) pulls")
        }
        if internalToken == nil {
            logger.warning("no internal token configured: \(producer)'s feed will refuse this consumer (401) until one is set")
        }
        var base = producerURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        // Only the types the handler applies (both backends' handlers apply the same ones; either saying "every type" wins).
        let types = sqlite.eventTypes.flatMap { sqliteTypes in postgres.eventTypes.map { sqliteTypes.union($0) } }
        let feed = EmbeddedFeed(source: producer, baseURL: base, internalToken: internalToken ?? "", eventTypes: types)
        let pollTimeout = min(options.pollTimeout, .seconds(30))
        return runner(EmbeddedFeedSource(feeds: [feed]), sqlite: sqlite, postgres: postgres, batchSize: options.batchSize,
                      pollTimeout: pollTimeout, logger: logger)
    }

    private func runner<Source: EventSource, SQLiteHandler: SQLiteEventHandler, PostgresHandler: PostgresEventHandler>(
        _ source: Source, sqlite sqliteHandler: SQLiteHandler, postgres postgresHandler: PostgresHandler, batchSize: Int,
        pollTimeout: Duration, logger: Logger
    ) -> any ConsumerService {
        if let sqlite {
            return ConsumerRunner(source: source, target: SQLiteConsumerTarget(database: sqlite, handler: sqliteHandler),
                                  batchSize: batchSize, pollTimeout: pollTimeout, logger: logger)
        }
        guard let postgres else { preconditionFailure("ServiceStorage has neither a SQLite nor a PostgreSQL database") }
        return ConsumerRunner(source: source, target: PostgresConsumerTarget(database: postgres, handler: postgresHandler),
                              batchSize: batchSize, pollTimeout: pollTimeout, logger: logger)
    }
}
