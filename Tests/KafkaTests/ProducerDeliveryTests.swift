import Foundation
import Kafka
import Logging
import ServiceTesting
import Testing

@Suite("Producer delivery reports")
struct ProducerDeliveryTests {
    @Test("send returns only after every message has its delivery report, from an idempotent producer")
    func sendWaitsForDeliveryReports() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster, extra: ["enable.idempotence": "false", "acks": "1"]),
            logger: KafkaTestSupport.logger)

        #expect(producer.effectiveProperty("enable.idempotence") == "true", "the invariant beats the caller's property")
        #expect(["all", "-1"].contains(producer.effectiveProperty("acks")))
        #expect(producer.effectiveProperty("partitioner") == "murmur2_random")

        try await producer.send(KafkaTestSupport.messages(topic: "waypoint.delivery", count: 500, keys: 7))
        #expect(producer.deliveredMessageCount == 500)
        #expect(producer.pendingDeliveryCount == 0)
        #expect(producer.failedMessageCount == 0)

        try await producer.send(KafkaTestSupport.messages(topic: "waypoint.delivery", count: 1, keys: 1))
        #expect(producer.deliveredMessageCount == 501)
        await producer.shutdown()
    }

    @Test("a message that cannot be delivered in time makes send throw librdkafka's error, after its report")
    func undeliverableMessageThrowsKafkaError() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        try cluster.setBrokerDown(1)
        let records = RecordingLogHandler.Records()
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster, extra: ["message.timeout.ms": "1000"]),
            logger: Logger(label: "waypoint.kafka.timeout") { _ in RecordingLogHandler(records: records) })

        let error = await #expect(throws: KafkaError.self) {
            try await producer.send(KafkaTestSupport.messages(topic: "waypoint.timeout", count: 3, keys: 3))
        }
        #expect(error?.name == "_MSG_TIMED_OUT")
        #expect(error?.reason.hasPrefix("3 of 3 messages were not delivered") == true)
        #expect(producer.failedMessageCount == 3)
        #expect(producer.pendingDeliveryCount == 0)
        await producer.shutdown()
    }

    @Test("while the broker is down, send waits; once it is back, every message is delivered exactly once")
    func sendRidesOutABrokerOutage() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        try cluster.createTopic("waypoint.outage", partitions: 4)
        let records = RecordingLogHandler.Records()
        var logger = Logger(label: "waypoint.kafka.outage") { _ in RecordingLogHandler(records: records) }
        logger.logLevel = .info
        let producer = try KafkaProducer(configuration: KafkaTestSupport.producerConfiguration(cluster), logger: logger)
        try await producer.send(KafkaTestSupport.messages(topic: "waypoint.outage", count: 1, keys: 1, tag: "warm"))

        try cluster.setBrokerDown(1)
        let messages = KafkaTestSupport.messages(topic: "waypoint.outage", count: 200, keys: 20)
        let sending = Task { try await producer.send(messages) }
        // The bounds are generous: alone this takes seconds, beside the whole suite on 2 cores it took over 30.
        try await waitUntil("all 200 messages are enqueued", timeout: .seconds(90), interval: .milliseconds(50)) { producer.pendingDeliveryCount == 200 }
        // A deliberate observation window: nothing can be delivered while the broker refuses connections.
        try await Task.sleep(for: .seconds(1))
        #expect(producer.pendingDeliveryCount == 200)
        #expect(producer.deliveredMessageCount == 1)
        #expect(producer.failedMessageCount == 0)

        try cluster.setBrokerUp(1)
        try await KafkaTestSupport.within(.seconds(90)) { try await sending.value }
        #expect(producer.deliveredMessageCount == 201)
        await producer.shutdown()

        // librdkafka's own log lines (here: the lost connection) arrived in swift-log with their facility.
        #expect(records.all.contains { $0.metadata?["kafka.facility"] != nil })

        let consumer = try KafkaConsumer(
            configuration: KafkaTestSupport.configuration(cluster), groupID: "outage",
            topics: ["waypoint.outage"], logger: KafkaTestSupport.logger)
        let received = try await KafkaTestSupport.receive(from: consumer) { $0.count >= 201 }
        await consumer.close()
        let ids = received.compactMap(KafkaTestSupport.eventID)
        #expect(ids.count == 201)
        #expect(Set(ids).count == 201, "idempotence: retries after the outage wrote no duplicates")
    }

    @Test("when librdkafka's local queue is full, send waits for room instead of failing")
    func fullLocalQueueSlowsSendDown() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster, extra: ["queue.buffering.max.messages": "10"]),
            logger: KafkaTestSupport.logger)
        try await producer.send(KafkaTestSupport.messages(topic: "waypoint.backpressure", count: 300, keys: 5))
        #expect(producer.deliveredMessageCount == 300)
        #expect(producer.failedMessageCount == 0)
        await producer.shutdown()
    }

    @Test("run as a service, the producer delivers what was sent and shuts down when the service is stopped")
    func serviceRunShutsDownOnCancellation() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster), logger: KafkaTestSupport.logger)
        let service = Task { try await producer.run() }
        try await producer.send(KafkaTestSupport.messages(topic: "waypoint.service", count: 10, keys: 2))
        service.cancel()
        try await KafkaTestSupport.within(.seconds(15)) { try await service.value }
        #expect(producer.deliveredMessageCount == 10)
        let error = await #expect(throws: KafkaError.self) {
            try await producer.send(KafkaTestSupport.messages(topic: "waypoint.service", count: 1, keys: 1))
        }
        #expect(error?.isClientClosed == true)
    }

    @Test("a shut-down producer refuses to send, and an unknown property is rejected with librdkafka's reason")
    func misuseSurfacesAsKafkaError() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster), logger: KafkaTestSupport.logger)
        await producer.shutdown()
        await producer.shutdown()
        let closed = await #expect(throws: KafkaError.self) {
            try await producer.send(KafkaTestSupport.messages(topic: "waypoint.closed", count: 2, keys: 1))
        }
        #expect(closed?.isClientClosed == true)

        let invalid = #expect(throws: KafkaError.self) {
            _ = try KafkaProducer(
                configuration: KafkaConfiguration(properties: ["no.such.property": "1"]), logger: KafkaTestSupport.logger)
        }
        #expect(invalid?.reason.contains("no.such.property") == true)
    }
}
