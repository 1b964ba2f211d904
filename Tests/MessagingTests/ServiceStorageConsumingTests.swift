import Contracts
import EventSourcing
import Foundation
import GRDB
import Kafka
import Logging
@testable import Messaging
import PostgresNIO
import ServiceKit
import ServiceLifecycle
import ServiceTesting
import Testing

/// `ServiceStorage.consuming`: the one way a service gets a running consumer of another service's topic from its
/// runtime settings — embedded feed or Kafka, SQLite or PostgreSQL — plus `ServiceEndpoints` and the readiness hook.
@Suite("ServiceStorage.consuming: a consumer of a producer's topic from the runtime settings")
struct ServiceStorageConsumingTests {
    static let token = "internal-token-for-consuming-0123"
    static let quiet: Logger = {
        var logger = Logger(label: "test.consuming")
        logger.logLevel = .warning
        return logger
    }()

    static func settings(_ service: String, _ backend: TestBackend, _ directory: TemporaryDirectory, kafka: String? = nil,
                         kafkaProperties: [String: String] = [:]) throws -> RuntimeSettings {
        try backend.runtime(service, in: directory, kafkaBrokers: kafka, kafkaProperties: kafkaProperties)
    }

    // MARK: Endpoints

    @Test("ServiceEndpoints: default ports for auth and tour-management, WAYPOINT_<PRODUCER>_URL, the consumer's own spelling wins")
    func endpoints() throws {
        let defaults = try ServiceEndpoints.fromEnvironment(serviceName: "tour-management", environment: [:])
        #expect(defaults.baseURL(of: "auth") == URL(string: "http://127.0.0.1:8081"))
        #expect(defaults.baseURL(of: "tour-management") == URL(string: "http://127.0.0.1:8082"))
        #expect(defaults.baseURL(of: "path-review") == nil)

        let configured = try ServiceEndpoints.fromEnvironment(serviceName: "analytics", environment: [
            "WAYPOINT_AUTH_URL": "http://auth:8081/",
            "WAYPOINT_ANALYTICS_AUTH_URL": "https://auth.internal/",
            "WAYPOINT_PATH_REVIEW_URL": "http://path-review:8083",
            "WAYPOINT_TOUR_MANAGEMENT_URL": " ",
        ])
        #expect(configured.baseURL(of: "auth") == URL(string: "https://auth.internal"))
        #expect(configured.baseURL(of: "path-review") == URL(string: "http://path-review:8083"))
        #expect(configured.baseURL(of: "tour-management") == URL(string: "http://127.0.0.1:8082"), "empty means unset")

        #expect(throws: ConfigurationError.self) {
            try ServiceEndpoints.fromEnvironment(serviceName: "tour-management", environment: ["WAYPOINT_AUTH_URL": "auth:8081"])
        }
        do {
            _ = try ServiceEndpoints.fromEnvironment(serviceName: "tour-management",
                                                     environment: ["WAYPOINT_TOUR_MANAGEMENT_AUTH_URL": "ftp://auth"])
            Issue.record("an ftp URL was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "WAYPOINT_TOUR_MANAGEMENT_AUTH_URL")
        }
    }

    // MARK: Embedded transport

    @Test("embedded: the consumer pulls the producer's feed into the storage's backend once each, and a poison event fails readiness",
          arguments: TestBackend.enabled)
    func embedded(backend: TestBackend) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await ServiceStorage.withOpen(try Self.settings("notes", .sqlite, directory), logger: Self.quiet) { producer in
            try await ServiceStorage.withOpen(try Self.settings("reader", backend, directory), logger: Self.quiet) { reader in
                try await appendNotes(producer.store, count: 30)
                let port = BoundPort()
                let app = try ServiceApplication(
                    configuration: ServiceConfiguration(serviceName: "notes", port: 0, internalToken: Self.token, logLevel: .warning),
                    metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: Self.quiet,
                    onServerRunning: port.onServerRunning) { routes in producer.addFeedRoutes(to: routes) }
                let producerGroup = ServiceGroup(configuration: .init(services: [app], logger: Self.quiet))
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await producerGroup.run() }
                    let url = URL(string: "http://127.0.0.1:\(try await port.wait())/")!
                    // The consumer's own error log (the poison event below) is expected: keep it out of the test output.
                    let consumer = try reader.consuming(topic: "waypoint.notes", producer: "notes", producerURL: url,
                                                        internalToken: Self.token, sqlite: SeenHandler(), postgres: PostgresSeenHandler(),
                                                        options: ConsumerOptions(batchSize: 7, pollTimeout: .milliseconds(200)),
                                                        logger: Logger(label: "test.consuming") { _ in SwiftLogNoOpLogHandler() })
                    let readiness = Readiness()
                    readiness.register(consumer)
                    #expect(consumer.name == "seen")
                    let consumerGroup = ServiceGroup(configuration: .init(services: [consumer], logger: Self.quiet))
                    tasks.addTask { try await consumerGroup.run() }
                    try await appendNotes(producer.store, count: 10, from: 30)
                    #expect(try await eventually(timeout: .seconds(30)) { try await Self.tally(reader).events == 40 })
                    #expect(try await Self.tally(reader).maxApplied == 1)
                    // The runner counts a batch and moves its status after the batch's transaction committed, so
                    // the rows can be seen a moment before the count.
                    let head = try await producer.store.headPosition()
                    #expect(try await eventually {
                        consumer.appliedEvents == 40 && consumer.status == .running(positions: ["notes": head], transportError: nil)
                    }, "applied \(consumer.appliedEvents), status \(consumer.status)")
                    #expect(await readiness.evaluate().isReady)

                    // A known event whose payload does not decode: the consumer stops and readiness names it.
                    try await producer.store.append(NewEvent(eventType: "NoteAdded", payload: Data("[1]".utf8)), to: "note-poison",
                                                    expectedVersion: .any)
                    try await appendNotes(producer.store, count: 1, from: 99)
                    #expect(try await eventually(timeout: .seconds(20)) {
                        if case .failed = consumer.status { return true }
                        return false
                    })
                    let report = await readiness.evaluate()
                    #expect(!report.isReady && report.failing == ["consumer.seen"])
                    #expect(report.checks.first?.detail?.contains("note-poison") == true)
                    #expect(try await Self.tally(reader).events == 40, "nothing after the poison event was applied")
                    await consumerGroup.triggerGracefulShutdown()
                    await producerGroup.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                }
            }
        }
    }

    @Test("embedded: without a producer URL, or for a topic with no single producer, consuming is a configuration error")
    func embeddedNeedsProducerURL() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await ServiceStorage.withOpen(try Self.settings("reader", .sqlite, directory), logger: Self.quiet) { reader in
            do {
                _ = try reader.consuming(.auth, producerURL: nil, internalToken: Self.token, sqlite: SeenHandler(),
                                         postgres: PostgresSeenHandler(), logger: Self.quiet)
                Issue.record("consuming without a producer URL succeeded")
            } catch let error as ConfigurationError {
                #expect(error.key == "WAYPOINT_AUTH_URL")
            }
            #expect(throws: ConfigurationError.self) {
                try reader.consuming(.notifications, producerURL: URL(string: "http://127.0.0.1:1"), internalToken: Self.token,
                                     sqlite: SeenHandler(), postgres: PostgresSeenHandler(), logger: Self.quiet)
            }
        }
    }

    @Test("readiness: failed and starting consumers are not ready; transport trouble only when asked to")
    func readinessMapping() async {
        let cases: [(ConsumerStatus, Bool, Bool)] = [
            (.starting, false, false),
            (.running(positions: ["auth": 3], transportError: nil), true, true),
            (.running(positions: [:], transportError: "connection refused"), true, false),
            (.failed(reason: "cannot apply"), false, false),
        ]
        for (status, lenient, strict) in cases {
            let consumer = FixedConsumer(status: status)
            #expect(await consumer.readinessCheck()().isReady == lenient, "\(status)")
            #expect(await consumer.readinessCheck(transportErrorsMakeUnready: true)().isReady == strict, "\(status)")
        }
    }

    // MARK: Kafka

    /// About 4 s, unlike the others: librdkafka 2.0.2's mock cluster waits a fixed 3 s before the first rebalance of a
    /// new consumer group (like a broker's `group.initial.rebalance.delay.ms`), and this version cannot shorten it.
    @Test("Kafka: with brokers configured, the producer's relay and the consumer (group = service name) meet on the topic")
    func kafka() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let properties = KafkaMockCluster.clientProperties.merging(["session.timeout.ms": "6000", "heartbeat.interval.ms": "500"]) { $1 }
        let producerSettings = try Self.settings("notes", .sqlite, directory, kafka: cluster.bootstrapServers, kafkaProperties: properties)
        let readerSettings = try Self.settings("reader", .sqlite, directory, kafka: cluster.bootstrapServers, kafkaProperties: properties)
        try await ServiceStorage.withOpen(producerSettings, logger: Self.quiet) { producer in
            try await ServiceStorage.withOpen(readerSettings, logger: Self.quiet) { reader in
                try await appendNotes(producer.store, count: 25)
                let publishing = try producer.publishing(topic: "waypoint.notes", logger: Self.quiet)
                let consumer = try reader.consuming(topic: "waypoint.notes", producer: "notes", producerURL: nil, internalToken: nil,
                                                    sqlite: SeenHandler(), postgres: PostgresSeenHandler(),
                                                    options: ConsumerOptions(pollTimeout: .milliseconds(200)), logger: Self.quiet)
                let kafkaSource = (consumer as? ConsumerRunner<KafkaEventSource, SQLiteConsumerTarget<SeenHandler>>)?.source.consumer
                #expect(kafkaSource?.groupID == "reader.\(SeenHandler().name)", "one consumer group per consumer: service and consumer name")
                #expect(kafkaSource?.topics == ["waypoint.notes"])
                let group = ServiceGroup(configuration: .init(services: publishing + [consumer], logger: Self.quiet))
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    #expect(try await eventually(timeout: .seconds(20)) { try await Self.tally(reader).events == 25 })
                    #expect(try await Self.tally(reader).maxApplied == 1)
                    // The status follows the commit of the applied events by a moment: wait for it rather than race it.
                    let head = try await producer.store.headPosition()
                    #expect(try await eventually(timeout: .seconds(10)) {
                        if case .running(let positions, _) = consumer.status { return positions["notes"] == head }
                        return false
                    })
                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                }
            }
        }
    }

    // MARK: Support

    static func tally(_ storage: ServiceStorage) async throws -> (events: Int, maxApplied: Int) {
        if let sqlite = storage.sqlite { return try await SeenHandler.tally(sqlite) }
        let rows = try await storage.postgres!.client.query("SELECT COUNT(*)::int, COALESCE(MAX(applied), 0)::int FROM seen",
                                                            logger: quiet)
        for try await (count, max) in rows.decode((Int, Int).self) { return (count, max) }
        return (0, 0)
    }
}

/// ``SeenHandler`` on PostgreSQL.
struct PostgresSeenHandler: PostgresEventHandler {
    var name = "seen"

    func createTables(_ connection: PostgresConnection) async throws {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS seen (event_id text PRIMARY KEY, stream_id text NOT NULL, applied int NOT NULL)
            """, logger: connection.logger)
    }

    func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws {
        guard event.eventType == "NoteAdded" else { return }
        _ = try event.decode([String: String].self)
        try await connection.query("""
            INSERT INTO seen (event_id, stream_id, applied) VALUES (\(event.eventID.uuidString), \(event.streamID), 1)
            ON CONFLICT (event_id) DO UPDATE SET applied = seen.applied + 1
            """, logger: connection.logger)
    }
}

/// A consumer whose status is given: the readiness mapping without a transport.
struct FixedConsumer: ConsumerService {
    var name = "fixed"
    var status: ConsumerStatus
    var appliedEvents = 0

    func run() async throws {}
}
