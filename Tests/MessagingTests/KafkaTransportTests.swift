import EventSourcing
import Foundation
import Kafka
import Logging
import Messaging
import ServiceTesting
import Synchronization
import Testing

/// Relay → Kafka (librdkafka's mock cluster over real TCP) → consumer projection, under the faults the kernel promises
/// to survive. Each test has its own cluster.
@Suite("Kafka transport: relay and consumers against the mock cluster", .serialized)
struct KafkaTransportTests {
    static let topic = "waypoint.notes"
    static let logger = Logger(label: "test.kafka")

    struct Producer {
        let store: SQLiteEventStore
        let checkpoints: SQLiteCheckpointStore
        let kafka: KafkaProducer

        func relay() -> Relay<SQLiteEventStore, KafkaEventPublisher, SQLiteCheckpointStore> {
            Relay(store: store, publisher: KafkaEventPublisher(producer: kafka), checkpoints: checkpoints, source: "notes",
                  topic: KafkaTransportTests.topic, batchSize: 50, retryDelay: .milliseconds(100))
        }
    }

    static func producer(_ directory: TemporaryDirectory, cluster: KafkaMockCluster) async throws -> Producer {
        let database = try directory.database("notes")
        let kafka = try KafkaProducer(configuration: KafkaConfiguration(
            bootstrapServers: cluster.bootstrapServers, clientID: "notes", properties: ["message.timeout.ms": "60000"]), logger: logger)
        return Producer(store: try await SQLiteEventStore(database: database),
                        checkpoints: try await SQLiteCheckpointStore(database: database), kafka: kafka)
    }

    static func consumer(_ database: SQLiteServiceDatabase, cluster: KafkaMockCluster, instance: String = "1")
        throws -> ConsumerRunner<KafkaEventSource, SQLiteConsumerTarget<SeenHandler>> {
        let consumer = try KafkaConsumer(
            configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "reader-\(instance)",
                                              properties: ["session.timeout.ms": "6000", "heartbeat.interval.ms": "500"]),
            groupID: "reader", topics: [topic], logger: logger)
        return ConsumerRunner(source: KafkaEventSource(consumer: consumer), target: SQLiteConsumerTarget(database: database, handler: SeenHandler()),
                              batchSize: 100, pollTimeout: .milliseconds(200))
    }

    @Test("(a) a relay restarted mid-stream loses no event, and re-sent ones are applied once")
    func relayRestart() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let producer = try await Self.producer(directory, cluster: cluster)
        let reader = try directory.database("reader")
        try await appendNotes(producer.store, count: 400)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Self.consumer(reader, cluster: cluster).run() }
            let first = producer.relay()
            group.addTask { try await first.run() }
            try await eventually(timeout: .seconds(30)) { first.status.published >= 100 }
            group.cancelAll()
        }
        let publishedBefore = try await producer.checkpoints.position(of: "relay:\(Self.topic)")
        #expect(publishedBefore >= 100)
        try await appendNotes(producer.store, count: 400, from: 400)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Self.consumer(reader, cluster: cluster).run() }
            group.addTask { try await producer.relay().run() }
            let done = try await eventually(timeout: .seconds(30)) { try await SeenHandler.tally(reader).events == 800 }
            #expect(done)
            group.cancelAll()
        }
        let tally = try await SeenHandler.tally(reader)
        #expect(tally.events == 800 && tally.maxApplied == 1)
        await producer.kafka.shutdown()
    }

    @Test("(b) a consumer killed between its local commit and the offset store gets the redelivery deduped")
    func crashBeforeOffsetStore() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let producer = try await Self.producer(directory, cluster: cluster)
        let reader = try directory.database("reader")
        try await appendNotes(producer.store, count: 200)
        let target = SQLiteConsumerTarget(database: reader, handler: SeenHandler())
        _ = try await target.prepare()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await producer.relay().run() }
            // The "crashing" instance: applies locally, never stores offsets, then disappears.
            let doomed = try KafkaConsumer(
                configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "doomed",
                                                  properties: ["session.timeout.ms": "6000"]),
                groupID: "reader", topics: [Self.topic], logger: Self.logger)
            var applied = 0
            let deadline = ContinuousClock.now + .seconds(30)
            while applied < 200, ContinuousClock.now < deadline {
                let messages = try await doomed.poll(maxMessages: 100, timeout: .milliseconds(200))
                applied += try await target.apply(messages.compactMap(PublishedEvent.init(kafkaMessage:)))
            }
            #expect(applied == 200)
            await doomed.close()

            let survivor = try Self.consumer(reader, cluster: cluster, instance: "2")
            group.addTask { try await survivor.run() }
            let caughtUp = try await eventually(timeout: .seconds(30)) {
                if case .running(let positions, _) = survivor.status { return positions["notes"] == 200 }
                return false
            }
            #expect(caughtUp, "the redelivered events reached the survivor")
            group.cancelAll()
        }
        let tally = try await SeenHandler.tally(reader)
        #expect(tally.events == 200 && tally.maxApplied == 1)
        await producer.kafka.shutdown()
    }

    @Test("(c) with the broker unreachable at start, appends are accepted and the relay catches up once it is back")
    func brokerDownAtStart() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        try cluster.setBrokerDown(1)
        let producer = try await Self.producer(directory, cluster: cluster)
        let reader = try directory.database("reader")
        try await withThrowingTaskGroup(of: Void.self) { group in
            let relay = producer.relay()
            group.addTask { try await relay.run() }
            try await appendNotes(producer.store, count: 150)
            #expect(try await producer.store.headPosition() == 150)
            try await Task.sleep(for: .milliseconds(500))
            #expect(relay.status.published == 0)
            try cluster.setBrokerUp(1)
            group.addTask { try await Self.consumer(reader, cluster: cluster).run() }
            #expect(try await eventually(timeout: .seconds(30)) { try await SeenHandler.tally(reader).events == 150 })
            group.cancelAll()
        }
        let tally = try await SeenHandler.tally(reader)
        #expect(tally.events == 150 && tally.maxApplied == 1)
        await producer.kafka.shutdown()
    }

    @Test("(d) two consumer instances in one group share the partitions and together apply every event once; (e) a rebalance mid-stream loses nothing")
    func groupSharingAndRebalance() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let producer = try await Self.producer(directory, cluster: cluster)
        let reader = try directory.database("reader")
        let first = try Self.consumer(reader, cluster: cluster, instance: "1")
        // A member subscribes only when it starts polling: librdkafka serves the group join from poll, so a
        // subscribed member that does not poll yet would stall the first member's rebalance.
        let second = Mutex<ConsumerRunner<KafkaEventSource, SQLiteConsumerTarget<SeenHandler>>?>(nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await producer.relay().run() }
            group.addTask { try await first.run() }
            try await appendNotes(producer.store, count: 300)
            #expect(try await eventually(timeout: .seconds(30)) { try await SeenHandler.tally(reader).events >= 100 })
            let joining = try Self.consumer(reader, cluster: cluster, instance: "2")
            second.withLock { $0 = joining }
            group.addTask { try await joining.run() }                      // rebalance: a member joins mid-stream
            try await appendNotes(producer.store, count: 600, from: 300)
            #expect(try await eventually(timeout: .seconds(30)) { try await SeenHandler.tally(reader).events == 900 })
            group.cancelAll()
        }
        let tally = try await SeenHandler.tally(reader)
        #expect(tally.events == 900 && tally.maxApplied == 1)
        let secondApplied = second.withLock { $0?.appliedEvents ?? 0 }
        #expect(first.appliedEvents > 0 && secondApplied > 0, "both members of the group applied a share")
        #expect(first.appliedEvents + secondApplied == 900)
        await producer.kafka.shutdown()
    }
}
