import Foundation
import Kafka
import ServiceTesting
import Synchronization
import Testing

@Suite("Consumer groups")
struct ConsumerGroupTests {
    @Test("two consumers in one group split a 4-partition topic and together receive every message once")
    func groupMembersShareThePartitions() async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        try cluster.createTopic("waypoint.shared", partitions: 4)
        let consumers = try (0..<2).map { _ in
            try KafkaConsumer(
                configuration: KafkaTestSupport.configuration(cluster), groupID: "pair",
                topics: ["waypoint.shared"], logger: KafkaTestSupport.logger)
        }
        let received = GroupInbox()

        try await withThrowingTaskGroup(of: Void.self) { group in
            // Rebalances are served inside poll, so both members keep polling for the whole test.
            for (index, consumer) in consumers.enumerated() {
                group.addTask {
                    while !Task.isCancelled {
                        let batch = try await consumer.poll(maxMessages: 100, timeout: .milliseconds(200))
                        received.add(batch, to: index)
                    }
                }
            }

            // A rebalance of the mock cluster under the full parallel test run on 2 cores took over 30 s once.
            try await waitUntil("the group has settled on two disjoint halves", timeout: .seconds(120), interval: .milliseconds(50)) {
                let assignments = try consumers.map { Set(try $0.assignment()) }
                return assignments.allSatisfy { $0.count == 2 }
                    && assignments[0].union(assignments[1]).count == 4
            }

            let producer = try KafkaProducer(
                configuration: KafkaTestSupport.producerConfiguration(cluster), logger: KafkaTestSupport.logger)
            try await producer.send(KafkaTestSupport.messages(topic: "waypoint.shared", count: 400, keys: 40))
            await producer.shutdown()

            try await waitUntil("400 messages have arrived", timeout: .seconds(30), interval: .milliseconds(50)) {
                received.total >= 400
            }
            group.cancelAll()
        }

        let assignments = try consumers.map { Set(try $0.assignment().map(\.partition)) }
        for consumer in consumers { await consumer.close() }
        let (first, second) = (received.messages(of: 0), received.messages(of: 1))
        let ids = (first + second).compactMap(KafkaTestSupport.eventID)
        #expect(ids.count == 400)
        #expect(Set(ids).count == 400)
        #expect(!first.isEmpty && !second.isEmpty)
        #expect(first.allSatisfy { assignments[0].contains($0.partition) })
        #expect(second.allSatisfy { assignments[1].contains($0.partition) })
    }
}

/// What each member of the group received, filled in by the members' polling tasks.
final class GroupInbox: Sendable {
    private let received = Mutex<[[KafkaIncomingMessage]]>([[], []])

    func add(_ messages: [KafkaIncomingMessage], to member: Int) {
        received.withLock { $0[member] += messages }
    }

    func messages(of member: Int) -> [KafkaIncomingMessage] {
        received.withLock { $0[member] }
    }

    var total: Int {
        received.withLock { $0.reduce(0) { $0 + $1.count } }
    }
}
