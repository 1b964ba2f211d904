import Crypto
import EventSourcing
import Foundation
import Kafka
import Logging
import ServiceKit
import ServiceLifecycle

/// Where a service keeps its log and read models, and how its events leave: chosen by configuration, never by code.
///
/// | key | meaning | default |
/// |---|---|---|
/// | `WAYPOINT_DATA_DIR` | directory of the embedded SQLite file `<service>.sqlite` (and other local files) | `./data` |
/// | `WAYPOINT_POSTGRES_URL` | PostgreSQL instead of SQLite (`postgres://user:password@host:port/database`) | unset |
/// | `WAYPOINT_POSTGRES_SCHEMA` | schema for the service's tables | `public` |
/// | `WAYPOINT_KAFKA_BROKERS` | Kafka bootstrap servers; unset means the embedded feed transport | unset |
/// | `WAYPOINT_PERSONAL_DATA_KEY` | base64 of a 32-byte key wrapping the per-person data keys at rest | unset |
///
/// Each key also has the service-specific spelling `WAYPOINT_<SERVICE>_<KEY>`, which wins.
public struct RuntimeSettings: Sendable {
    public enum Backend: Sendable, Hashable {
        case sqlite(path: String)
        case postgres(url: String, schema: String?)
    }

    public var serviceName: String
    public var dataDirectory: URL
    public var backend: Backend
    public var kafkaBrokers: String?
    public var kafkaProperties: [String: String]
    public var personalDataKey: SymmetricKey?

    public init(serviceName: String, dataDirectory: URL, backend: Backend, kafkaBrokers: String? = nil,
                kafkaProperties: [String: String] = [:], personalDataKey: SymmetricKey? = nil) {
        self.serviceName = serviceName
        self.dataDirectory = dataDirectory
        self.backend = backend
        self.kafkaBrokers = kafkaBrokers
        self.kafkaProperties = kafkaProperties
        self.personalDataKey = personalDataKey
    }

    /// Reads the settings of `serviceName` from the environment.
    public static func fromEnvironment(serviceName: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> RuntimeSettings {
        let reader = EnvironmentReader(serviceName: serviceName, environment: environment)
        let directory = URL(fileURLWithPath: reader.string("DATA_DIR", default: "data"), isDirectory: true)
        let backend: Backend
        if let (_, url) = reader.value("POSTGRES_URL") {
            backend = .postgres(url: url, schema: reader.value("POSTGRES_SCHEMA")?.value)
        } else {
            backend = .sqlite(path: directory.appendingPathComponent("\(serviceName).sqlite").path)
        }
        var key: SymmetricKey?
        if let (name, raw) = reader.value("PERSONAL_DATA_KEY") {
            guard let data = Data(base64Encoded: raw), data.count == 32 else {
                throw ConfigurationError(key: name, value: "<redacted>", expected: "base64 of 32 random bytes")
            }
            key = SymmetricKey(data: data)
        }
        return RuntimeSettings(serviceName: serviceName, dataDirectory: directory, backend: backend,
                               kafkaBrokers: reader.value("KAFKA_BROKERS")?.value, personalDataKey: key)
    }
}

/// A service's opened storage: its event store, checkpoints and personal-data keys on one backend, plus the `Service`s
/// that must run for it (the PostgreSQL pool).
public final class ServiceStorage: Sendable {
    public let settings: RuntimeSettings
    public let store: any EventStore & SnapshotStore
    public let checkpoints: any CheckpointStore
    public let personalDataKeys: any PersonalDataKeyStore
    /// Set on the embedded backend.
    public let sqlite: SQLiteServiceDatabase?
    /// Set on the PostgreSQL backend.
    public let postgres: PostgresServiceDatabase?

    /// How long the followers of this service's own log (its projections, its notifier) wait for a wake-up before they
    /// read the log again anyway — the delay for appends made by another process, which no in-process wake-up announces.
    ///
    /// PostgreSQL: 100 ms, since instances of a scaled-out service share one log. SQLite: 1 s: the file is the service
    /// process's own, and the only other writers are operator commands (`auth create-admin`) run beside it, whose appends
    /// a second's delay does not hurt. Every follower that finds nothing re-reads at this rate when idle: at 100 ms, an
    /// idle embedded platform used ~8 % of a core (tour-management alone 7 waiters, 70 reads and their timer wake-ups a
    /// second); the service's own appends wake its followers at once on both backends.
    public var followerPollInterval: Duration { sqlite != nil ? .seconds(1) : .milliseconds(100) }

    private init(settings: RuntimeSettings, store: any EventStore & SnapshotStore, checkpoints: any CheckpointStore,
                 personalDataKeys: any PersonalDataKeyStore, sqlite: SQLiteServiceDatabase?, postgres: PostgresServiceDatabase?) {
        self.settings = settings
        self.store = store
        self.checkpoints = checkpoints
        self.personalDataKeys = personalDataKeys
        self.sqlite = sqlite
        self.postgres = postgres
    }

    /// Runs `body` with the storage open and, on PostgreSQL, its connection pool running for as long as `body` runs:
    /// a service runs its whole application inside `body`, so the pool stops only after the application has drained.
    public static func withOpen<T: Sendable>(_ settings: RuntimeSettings, logger: Logger,
                                             _ body: @Sendable (ServiceStorage) async throws -> T) async throws -> T {
        switch settings.backend {
        case .sqlite(let path):
            try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            let database = try SQLiteServiceDatabase(path: path)
            let storage = ServiceStorage(
                settings: settings, store: try await SQLiteEventStore(database: database),
                checkpoints: try await SQLiteCheckpointStore(database: database),
                personalDataKeys: try await SQLitePersonalDataKeyStore(database: database, keyEncryptionKey: settings.personalDataKey),
                sqlite: database, postgres: nil)
            return try await body(storage)
        case .postgres(let url, let schema):
            let database = try PostgresServiceDatabase(url: url, schema: schema, logger: logger)
            return try await database.withRunning {
                let storage = ServiceStorage(
                    settings: settings, store: try await PostgresEventStore(database: database),
                    checkpoints: try await PostgresCheckpointStore(database: database),
                    personalDataKeys: try await PostgresPersonalDataKeyStore(database: database, keyEncryptionKey: settings.personalDataKey),
                    sqlite: nil, postgres: database)
                return try await body(storage)
            }
        }
    }

    /// How the service's own events leave it: on Kafka, a relay to `topic` (plus the producer to run); on the embedded
    /// transport nothing runs — consumers pull the feed the caller mounts with ``feedController(include:)``.
    public func publishing(topic: String, include: @escaping @Sendable (EventEnvelope) -> Bool = { _ in true },
                           logger: Logger) throws -> [any Service] {
        try publishing([PublishedTopic(topic, include: include)], logger: logger)
    }

    /// How the service's own events leave it when they go to several topics (e.g. its own topic and
    /// `waypoint.notifications`): on Kafka one producer and one relay per topic, each with its own checkpoint
    /// (`relay:<topic>`) and filter; on the embedded transport nothing runs.
    public func publishing(_ topics: [PublishedTopic], logger: Logger) throws -> [any Service] {
        guard let brokers = settings.kafkaBrokers, !topics.isEmpty else { return [] }
        let producer = try KafkaProducer(
            configuration: KafkaConfiguration(bootstrapServers: brokers, clientID: settings.serviceName, properties: settings.kafkaProperties),
            logger: logger)
        let publisher = KafkaEventPublisher(producer: producer)
        // The producer is listed first, so it stops (and flushes) after every relay that sends through it.
        return [producer] + topics.map { route in
            makeRelay(store, publisher: publisher, checkpoints: checkpoints, source: settings.serviceName, topic: route.topic,
                      include: route.include, logger: logger)
        }
    }

    /// The embedded feed of the service's log (`GET /v1/internal/events`), serving the events `include` lets through.
    public func addFeedRoutes(to routes: ServiceRoutes, include: @escaping @Sendable (EventEnvelope) -> Bool = { _ in true }) {
        addFeed(store, source: settings.serviceName, include: include, to: routes)
    }
}

private func makeRelay<Store: EventStore, Checkpoints: CheckpointStore>(
    _ store: Store, publisher: KafkaEventPublisher, checkpoints: Checkpoints, source: String, topic: String,
    include: @escaping @Sendable (EventEnvelope) -> Bool, logger: Logger
) -> any Service {
    Relay(store: store, publisher: publisher, checkpoints: checkpoints, source: source, topic: topic, include: include, logger: logger)
}

private func addFeed<Store: EventStore>(_ store: Store, source: String, include: @escaping @Sendable (EventEnvelope) -> Bool,
                                        to routes: ServiceRoutes) {
    EventFeedController(store: store, source: source, include: include).addRoutes(to: routes.internalGroup())
}

/// One topic a service's relay publishes to, and which events of its log go there.
public struct PublishedTopic: Sendable {
    /// The topic name, e.g. `waypoint.tours`.
    public var topic: String
    /// Which events of the log are published on it.
    public var include: @Sendable (EventEnvelope) -> Bool

    /// Creates a route of the log to `topic`.
    public init(_ topic: String, include: @escaping @Sendable (EventEnvelope) -> Bool = { _ in true }) {
        self.topic = topic
        self.include = include
    }
}

/// How a service's executable starts any of its commands: logging from its configuration, then its storage opened for
/// the duration of `body` (the application, or a one-shot operator command).
public enum ServiceLauncher {
    public static func run<T: Sendable>(service: ServiceConfiguration, runtime: RuntimeSettings,
                                        _ body: @Sendable (ServiceStorage, Logger) async throws -> T) async throws -> T {
        ServiceLogging.bootstrap(service)
        let logger = ServiceLogging.makeLogger(service)
        return try await ServiceStorage.withOpen(runtime, logger: logger) { storage in try await body(storage, logger) }
    }
}
