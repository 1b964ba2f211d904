import Foundation
import Kafka
import Testing

@Suite("Consumer lag from cached watermarks")
struct ConsumerLagTests {
    @Test("lag after a message is the number of messages behind it in its partition")
    func lagCountsMessagesBehind() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        try cluster.createTopic("lag-topic", partitions: 1)
        let producer = try KafkaProducer(configuration: KafkaTestSupport.producerConfiguration(cluster), logger: KafkaTestSupport.logger)
        try await producer.send(KafkaTestSupport.messages(topic: "lag-topic", count: 10, keys: 1))
        let consumer = try KafkaConsumer(configuration: KafkaTestSupport.configuration(cluster), groupID: "lag",
                                         topics: ["lag-topic"], logger: KafkaTestSupport.logger)
        let received = try await KafkaTestSupport.receive(from: consumer) { $0.count >= 10 }
        let first = try #require(received.first)
        let last = try #require(received.last)
        #expect(consumer.lag(after: last) == 0)
        #expect(consumer.lag(after: first) == 9)
        await consumer.close()
        await producer.shutdown()
    }
}
