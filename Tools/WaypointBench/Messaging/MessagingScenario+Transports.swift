import EventSourcing
import Foundation
import Kafka
import Logging
import Messaging
import NIOCore
import ServiceKit
import Synchronization

extension MessagingScenario {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-bench-msg-\(UUID().uuidString.prefix(8))")
    }

    /// Relay → KafkaProducer → mock cluster → KafkaConsumer → SQLite projection.
    static func kafka(logger: Logger) async throws -> MessagingScenario {
        let directory = temporaryDirectory()
        let producerDB = try SQLiteServiceDatabase(path: directory.appendingPathComponent("producer.sqlite").path)
        let consumerDB = try SQLiteServiceDatabase(path: directory.appendingPathComponent("consumer.sqlite").path)
        let store = try await SQLiteEventStore(database: producerDB)
        let cluster = try KafkaMockCluster()
        let producer = try KafkaProducer(configuration: KafkaConfiguration(
            bootstrapServers: cluster.bootstrapServers, clientID: "bench", properties: [:]), logger: logger)
        let consumer = try KafkaConsumer(configuration: KafkaConfiguration(
            bootstrapServers: cluster.bootstrapServers, clientID: "bench-consumer",
            properties: KafkaMockCluster.clientProperties),
            groupID: "bench", topics: ["waypoint.bench"], logger: logger)
        let recorder = LagRecorder()
        let relay = Relay(store: store, publisher: KafkaEventPublisher(producer: producer),
                          checkpoints: try await SQLiteCheckpointStore(database: producerDB), source: "bench", topic: "waypoint.bench",
                          batchSize: 1_000, logger: logger)
        let runner = ConsumerRunner(source: KafkaEventSource(consumer: consumer, logger: logger),
                                    target: SQLiteConsumerTarget(database: consumerDB, handler: recorder),
                                    batchSize: 1_000, pollTimeout: .milliseconds(50), logger: logger)
        return MessagingScenario(
            name: "kafka", directory: directory, store: store, recorder: recorder,
            start: { group in
                group.addTask { try await relay.run() }
                group.addTask { try await runner.run() }
            },
            cleanUp: {
                await producer.shutdown()
                cluster.shutdown()
            })
    }

    /// Producer store served by `GET /v1/internal/events` (ServiceKit app on loopback) → EmbeddedFeedSource → SQLite.
    static func embedded(logger: Logger) async throws -> MessagingScenario {
        let directory = temporaryDirectory()
        let producerDB = try SQLiteServiceDatabase(path: directory.appendingPathComponent("producer.sqlite").path)
        let consumerDB = try SQLiteServiceDatabase(path: directory.appendingPathComponent("consumer.sqlite").path)
        let store = try await SQLiteEventStore(database: producerDB)
        let recorder = LagRecorder()
        let token = "bench-internal-token-0123456789"
        let port = Mutex<Int?>(nil)
        let app = try ServiceApplication(
            configuration: ServiceConfiguration(serviceName: "bench", port: 0, internalToken: token, logLevel: .error),
            metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: logger,
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } }
        ) { routes in
            EventFeedController(store: store, source: "bench").addRoutes(to: routes.internalGroup())
        }
        return MessagingScenario(
            name: "embedded", directory: directory, store: store, recorder: recorder,
            start: { group in
                group.addTask { try await app.run() }
                while port.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(5)) }
                let url = "http://127.0.0.1:\(port.withLock { $0! })"
                let runner = ConsumerRunner(
                    source: EmbeddedFeedSource(feeds: [EmbeddedFeed(source: "bench", baseURL: url, internalToken: token)]),
                    target: SQLiteConsumerTarget(database: consumerDB, handler: recorder),
                    batchSize: 1_000, pollTimeout: .seconds(5), logger: logger)
                group.addTask { try await runner.run() }
            },
            cleanUp: {})
    }
}
