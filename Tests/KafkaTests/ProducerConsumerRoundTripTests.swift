import Foundation
import Kafka
import Testing

@Suite("Producer to consumer over the mock cluster")
struct ProducerConsumerRoundTripTests {
    @Test("a consumer receives each message with the key, value and headers it was sent with, in per-key order")
    func roundTripKeepsContentAndPerKeyOrder() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        try cluster.createTopic("waypoint.roundtrip", partitions: 4)
        let sent = KafkaTestSupport.messages(topic: "waypoint.roundtrip", count: 1_000, keys: 10)

        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster), logger: KafkaTestSupport.logger)
        for batch in stride(from: 0, to: sent.count, by: 250) {
            try await producer.send(Array(sent[batch..<batch + 250]))
        }
        await producer.shutdown()

        let consumer = try KafkaConsumer(
            configuration: KafkaTestSupport.configuration(cluster), groupID: "roundtrip",
            topics: ["waypoint.roundtrip"], logger: KafkaTestSupport.logger)
        let received = try await KafkaTestSupport.receive(from: consumer) { $0.count >= sent.count }
        await consumer.close()

        #expect(received.count == sent.count)
        let sentByID = Dictionary(uniqueKeysWithValues: sent.map { ($0.headers[0].value, $0) })
        for message in received {
            let id = try #require(message.header("event-id"))
            let original = try #require(sentByID[id])
            #expect(message.topic == original.topic)
            #expect(message.key == original.key)
            #expect(message.value == original.value)
            #expect(message.headers == original.headers)
            #expect(message.timestamp != nil)
        }

        // Per key: one partition, and the sequence numbers arrive as 0, 1, 2, … in that partition's offset order.
        let byKey = Dictionary(grouping: received) { $0.key ?? "" }
        #expect(byKey.count == 10)
        for (key, messages) in byKey {
            #expect(Set(messages.map(\.partition)).count == 1, "key \(key) spread over partitions")
            let sequences = messages.sorted { $0.offset < $1.offset }
                .map { String(decoding: $0.value, as: UTF8.self).split(separator: ":").last.flatMap { Int($0) } }
            #expect(sequences == (0..<100).map { $0 }, "key \(key) out of order")
            #expect(messages.map(\.offset) == messages.map(\.offset).sorted(), "key \(key) polled out of offset order")
        }
    }
}
