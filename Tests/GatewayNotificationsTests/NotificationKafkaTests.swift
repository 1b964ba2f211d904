import Contracts
import Foundation
import GatewayNotifications
import Kafka
import Messaging
import ServiceTesting
import Testing
import TourManagement

/// The Kafka path on librdkafka's mock cluster (real Kafka TCP on loopback): tour-management's two relays and the
/// hub's own consumer group. About 10 s: the mock cluster delays every new group's first rebalance by 3 s.
@Suite("gateway: notifications over Kafka")
struct NotificationKafkaTests {
    static let properties = KafkaMockCluster.clientProperties.merging(["session.timeout.ms": "6000", "heartbeat.interval.ms": "500"]) { $1 }

    @Test("UserNotified goes to waypoint.notifications only; the hub reads it from the earliest offset and streams it live")
    func kafka() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        for topic in [Topic.tours, .notifications, .auth] { try cluster.createTopic(topic.name) }
        let kafka = KafkaSettings(brokers: cluster.bootstrapServers, properties: Self.properties)
        try await NotificationProducer.run(kafka: kafka) { producer, _ in
            let buyer = UUID.v4()
            // Published before the hub exists: a new hub instance must still have it (earliest offset, own group).
            let early = try await producer.completePurchase(buyer: buyer)
            let hub = NotificationHub(configuration: NotificationHubConfiguration(
                transport: .kafka(brokers: cluster.bootstrapServers, properties: Self.properties), keepAlive: .seconds(1)),
                logger: LoopbackServer.quietLogger)
            try await NotificationGateway.run(hub: hub) { port in
                #expect(try await eventually(timeout: .seconds(30)) { hub.status == .live })
                let stream = try await SSEClient.open(port: port, user: buyer)
                defer { stream.close() }
                #expect(try await eventually(timeout: .seconds(20)) { stream.notifications.count == 1 })
                let live = try await producer.completePurchase(buyer: buyer)
                #expect(try await eventually(timeout: .seconds(20)) { stream.notifications.count == 2 })
                #expect(stream.notifications.map(\.id) == [early, live].map { $0.uuidString.lowercased() })
            }
            // What the tours relay sent: the purchases, never a notification.
            #expect(try await Self.eventTypes(on: .tours, brokers: cluster.bootstrapServers, atLeast: 2) == ["PurchaseCompleted", "PurchaseCompleted"])
            #expect(try await Self.eventTypes(on: .notifications, brokers: cluster.bootstrapServers, atLeast: 2) == ["UserNotified", "UserNotified"])
        }
    }

    /// The event types on `topic`, read from the start by a fresh group until at least `count` arrived and a poll
    /// came back empty.
    static func eventTypes(on topic: Topic, brokers: String, atLeast count: Int) async throws -> [String] {
        let consumer = try KafkaConsumer(configuration: KafkaConfiguration(bootstrapServers: brokers, clientID: "test", properties: properties),
                                         groupID: "test-\(UUID.v4())", topics: [topic.name], logger: LoopbackServer.quietLogger)
        var types: [String] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let messages = try await consumer.poll(maxMessages: 100, timeout: .milliseconds(500))
            types += messages.compactMap { PublishedEvent(kafkaMessage: $0)?.eventType }
            if messages.isEmpty, types.count >= count { break }
        }
        await consumer.close()
        return types
    }
}
