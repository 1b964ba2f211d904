import Foundation
import Kafka
import Testing

@Suite("Consumer offsets are committed only once stored")
struct ConsumerOffsetTests {
    @Test("messages whose offsets were never stored are redelivered to the group; stored and committed ones are not")
    func onlyStoredOffsetsAreCommitted() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        try cluster.createTopic("waypoint.offsets", partitions: 4)
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.producerConfiguration(cluster), logger: KafkaTestSupport.logger)
        try await producer.send(KafkaTestSupport.messages(topic: "waypoint.offsets", count: 40, keys: 8))

        func member() throws -> KafkaConsumer {
            try KafkaConsumer(
                configuration: KafkaTestSupport.configuration(cluster), groupID: "offsets",
                topics: ["waypoint.offsets"], logger: KafkaTestSupport.logger)
        }

        // 1. Processes everything but stores nothing (a crash before the local commit, in effect).
        let first = try member()
        let firstBatch = try await KafkaTestSupport.receive(from: first) { $0.count >= 40 }
        await first.close()

        // 2. Gets the same 40 again, stores each offset and commits.
        let second = try member()
        let secondBatch = try await KafkaTestSupport.receive(from: second) { $0.count >= 40 }
        #expect(Set(secondBatch.compactMap(KafkaTestSupport.eventID)) == Set(firstBatch.compactMap(KafkaTestSupport.eventID)))
        #expect(Set(secondBatch.compactMap(KafkaTestSupport.eventID)).count == 40)
        for message in secondBatch { try second.storeOffset(message) }
        try await second.commit()
        await second.close()

        // 3. Sees only what was published after the commit.
        try await producer.send(KafkaTestSupport.messages(topic: "waypoint.offsets", count: 1, keys: 1, tag: "after"))
        await producer.shutdown()
        let third = try member()
        let thirdBatch = try await KafkaTestSupport.receive(from: third) { !$0.isEmpty }
        await third.close()
        #expect(thirdBatch.compactMap(KafkaTestSupport.eventID) == ["after-0"])

        await #expect(throws: KafkaError.self) { try await third.poll(maxMessages: 1, timeout: .zero) }
    }
}
