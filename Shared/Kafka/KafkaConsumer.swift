import CRdKafka
import Logging

/// A member of a Kafka consumer group that hands out messages in batches and commits only what the application
/// confirmed with ``storeOffset(_:)``.
///
/// Commit strategy: librdkafka never stores offsets on its own (`enable.auto.offset.store=false`, always), so an offset
/// is stored only after the local transaction that applied the message committed. Stored offsets are committed
/// periodically by librdkafka (`enable.auto.commit=true`, every `auto.commit.interval.ms`, default 5 s), before
/// partitions are revoked in a rebalance, on ``commit()`` and on ``close()``. A crash therefore redelivers at most the
/// messages stored since the last commit, and consumers dedupe.
///
/// Defaults (overridable through ``KafkaConfiguration/properties``): `auto.offset.reset=earliest`,
/// `enable.auto.commit=true`, `socket.nagle.disable=true` (a consumer's fetches and commits are small requests; with Nagle's
/// algorithm one can wait for the delayed ACK of the previous, 40 ms). Always set: `group.id`, `enable.auto.offset.store=false`.
///
/// Threads: polling, committing and closing run on the consumer's own serial queue, so a ``poll(maxMessages:timeout:)``
/// in progress delays a ``commit()`` by at most its timeout. Rebalances are served inside those calls.
public final class KafkaConsumer: Sendable {
    /// The consumer group this consumer belongs to.
    public let groupID: String

    /// The topics it subscribed to.
    public let topics: [String]

    private let handle: RDKafkaHandle
    private let calls: BlockingCallQueue
    private let logger: Logger

    /// Creates the consumer and subscribes it to `topics`; partitions are assigned by the group during later polls.
    /// - Throws: ``KafkaError`` when a property is invalid or the subscription is refused.
    public init(configuration: KafkaConfiguration, groupID: String, topics: [String], logger: Logger) throws {
        let properties = configuration.librdkafkaProperties(
            defaults: ["auto.offset.reset": "earliest", "enable.auto.commit": "true", "socket.nagle.disable": "true"],
            invariants: ["group.id": groupID, "enable.auto.offset.store": "false"])
        handle = try RDKafkaHandle.make(
            type: RD_KAFKA_CONSUMER, properties: properties, context: RDKafkaClientContext(logger: logger),
            configure: RDKafkaRebalance.install(on:))
        self.groupID = groupID
        self.topics = topics
        self.logger = logger
        calls = BlockingCallQueue(label: "waypoint.kafka.consumer.\(handle.name)")
        // Error events and rebalances are then served by rd_kafka_consumer_poll: no second poll thread is needed.
        rd_kafka_poll_set_consumer(handle.pointer)
        let code = RDKafkaTopicPartitionList.with(topics.map { ($0, RD_KAFKA_PARTITION_UA, Int64(RD_KAFKA_OFFSET_INVALID)) }) {
            rd_kafka_subscribe(handle.pointer, $0)
        }
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
            handle.destroy()
            throw KafkaError(code: code, operation: "subscribe to \(topics)")
        }
    }

    deinit {
        if !handle.isDestroyed {
            logger.warning("KafkaConsumer released without close(); closing it now")
            closeNow()
        }
    }

    /// Waits up to `timeout` for the first message, then returns it with whatever else is already fetched,
    /// up to `maxMessages`; an empty array means nothing arrived in time.
    ///
    /// Informational errors (a broker went away, a topic does not exist yet, partition EOF) are logged, not thrown:
    /// librdkafka recovers from them by itself. Task cancellation does not cut the wait short; keep `timeout` short
    /// (about a second), since ``commit()`` and ``close()`` queue behind a poll in progress.
    /// - Throws: ``KafkaError`` for a fatal error (the consumer must be recreated) or after ``close()``.
    public func poll(maxMessages: Int, timeout: Duration) async throws -> [KafkaIncomingMessage] {
        precondition(maxMessages > 0, "maxMessages must be positive")
        return try await calls.run { [handle, logger] in
            guard !handle.isDestroyed else { throw KafkaError.clientClosed("poll") }
            return try Self.pollNow(handle.pointer, maxMessages: maxMessages, timeout: timeout, logger: logger)
        }
    }

    /// Marks `message` as processed: stores `offset + 1` for its partition, to be committed by the next commit.
    /// Call it only after the local transaction that applied the message committed. Cheap; does not block.
    ///
    /// If the partition has meanwhile been revoked in a rebalance, nothing is stored (the new owner reads the
    /// message again and dedupes it); this is logged, not thrown.
    /// - Throws: ``KafkaError`` for any other refusal, or after ``close()``.
    public func storeOffset(_ message: KafkaIncomingMessage) throws {
        try handle.withLiveHandle("store offset") { pointer in
            let code = RDKafkaTopicPartitionList.with([(message.topic, message.partition, message.offset + 1)]) { list in
                let code = rd_kafka_offsets_store(pointer, list)
                return code == RD_KAFKA_RESP_ERR_NO_ERROR ? RDKafkaTopicPartitionList.firstError(in: list) ?? code : code
            }
            switch code {
            case RD_KAFKA_RESP_ERR_NO_ERROR:
                return
            case RD_KAFKA_RESP_ERR__STATE, RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
                logger.notice("offset not stored: partition no longer assigned to this consumer", metadata: [
                    "kafka.partition": "\(message.topic)[\(message.partition)]", "kafka.offset": "\(message.offset)"])
            default:
                throw KafkaError(code: code, operation: "store offset \(message.offset + 1) for \(message.topic)[\(message.partition)]")
            }
        }
    }

    /// Synchronously commits every stored offset to the group coordinator. Nothing stored counts as success.
    /// - Throws: ``KafkaError`` when the coordinator rejects the commit, or after ``close()``.
    public func commit() async throws {
        try await calls.run { [handle, logger] in
            guard !handle.isDestroyed else { throw KafkaError.clientClosed("commit") }
            if let error = RDKafkaRebalance.commitStoredOffsets(handle.pointer, operation: "commit offsets", logger: logger) {
                throw error
            }
        }
    }

    /// How many messages of a partition lie beyond `message` (high watermark − next offset), from librdkafka's
    /// locally cached watermarks (no broker round trip); `nil` before the first fetch response for the partition.
    public func lag(after message: KafkaIncomingMessage) -> Int64? {
        try? handle.withLiveHandle("read watermarks") { pointer -> Int64? in
            var low: Int64 = 0
            var high: Int64 = 0
            let code = rd_kafka_get_watermark_offsets(pointer, message.topic, message.partition, &low, &high)
            guard code == RD_KAFKA_RESP_ERR_NO_ERROR, high >= 0 else { return nil }
            return max(0, high - (message.offset + 1))
        } ?? nil
    }

    /// The partitions currently assigned to this consumer by its group (empty before the first rebalance).
    public func assignment() throws -> [KafkaTopicPartition] {
        try handle.withLiveHandle("read assignment") { try Self.assignment(of: $0) }
    }

    private static func assignment(of pointer: OpaquePointer) throws -> [KafkaTopicPartition] {
        var list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        let code = rd_kafka_assignment(pointer, &list)
        defer { list.map(rd_kafka_topic_partition_list_destroy) }
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR, let list else {
            throw KafkaError(code: code, operation: "read assignment")
        }
        return RDKafkaTopicPartitionList.partitions(in: list)
    }

    /// Commits stored offsets, leaves the group (its partitions move to the other members) and destroys the handle.
    /// Idempotent; afterwards every other call throws.
    public func close() async {
        await calls.run { [self] in closeNow() }
    }

    // MARK: On the consumer's serial queue

    private func closeNow() {
        guard !handle.isDestroyed else { return }
        RDKafkaRebalance.commitStoredOffsets(handle.pointer, operation: "commit offsets on close", logger: logger)
        Self.leaveGroup(handle.pointer, logger: logger)
        let code = rd_kafka_consumer_close(handle.pointer)  // the group was left above: only the handle's own shutdown
        if code != RD_KAFKA_RESP_ERR_NO_ERROR {
            logger.warning("\(KafkaError(code: code, operation: "leave consumer group \(groupID)"))")
        }
        handle.destroy()
    }

    /// The longest ``leaveGroup(_:logger:)`` serves the queue before the close goes ahead anyway: well inside the
    /// grace a supervisor gives a stopping service before SIGKILL (the launcher's, compose's `stop_grace_period`).
    static let leaveTimeout: Duration = .seconds(2)

    /// Leaves the group before the close: unsubscribes, then serves the consumer's queue until the group's revoke has
    /// been applied (the assignment is empty) and a little longer, so that the assignment's own operations (the
    /// revoke's commit, the fetchers' stop) end before the group is terminated. librdkafka 2.0 (Debian 12's) aborts
    /// the whole process with `rd_kafka_cgrp_terminated: assert: !rd_kafka_assignment_in_progress` when a consumer
    /// is closed while an assignment is still being applied — a close right after a rebalance; it killed the test
    /// process in a full run (librdkafka issues #4027, #4792; "unsubscribe, wait for no assignment, close" is the
    /// workaround given there). Messages fetched meanwhile are dropped without storing their offsets: the next owner
    /// reads them again, as after any close.
    private static func leaveGroup(_ handle: OpaquePointer, logger: Logger) {
        let code = rd_kafka_unsubscribe(handle)
        if code != RD_KAFKA_RESP_ERR_NO_ERROR {
            logger.warning("\(KafkaError(code: code, operation: "unsubscribe before close"))")
        }
        let deadline = ContinuousClock.now + leaveTimeout
        var settledPolls = 0
        while ContinuousClock.now < deadline, settledPolls < 3 {
            if let message = rd_kafka_consumer_poll(handle, 20) {
                rd_kafka_message_destroy(message)
                continue
            }
            settledPolls = (try? assignment(of: handle).isEmpty) ?? true ? settledPolls + 1 : 0
        }
        if settledPolls < 3 {
            logger.warning("the group's revoke was not applied within \(leaveTimeout); closing anyway")
        }
    }

    private static func pollNow(
        _ handle: OpaquePointer, maxMessages: Int, timeout: Duration, logger: Logger
    ) throws -> [KafkaIncomingMessage] {
        let deadline = ContinuousClock.now + timeout
        var messages: [KafkaIncomingMessage] = []
        while messages.count < maxMessages {
            // Wait only for the first message; after that, take just what is already fetched.
            let wait = messages.isEmpty ? (deadline - .now).kafkaMilliseconds : 0
            guard let message = rd_kafka_consumer_poll(handle, wait) else {
                if messages.isEmpty, ContinuousClock.now < deadline { continue }
                break
            }
            defer { rd_kafka_message_destroy(message) }
            let code = message.pointee.err
            switch code {
            case RD_KAFKA_RESP_ERR_NO_ERROR:
                messages.append(RDKafkaMessage.incoming(message))
            case RD_KAFKA_RESP_ERR__PARTITION_EOF:
                continue
            case RD_KAFKA_RESP_ERR__FATAL:
                var reason = [CChar](repeating: 0, count: 512)
                let fatal = rd_kafka_fatal_error(handle, &reason, reason.count)
                throw KafkaError(code: fatal, operation: "consume", reason: String(cChars: reason))
            default:
                logger.warning("consumer error (librdkafka recovers by itself)", metadata: [
                    "kafka.error": "\(String(cString: rd_kafka_err2name(code)))",
                    "kafka.reason": "\(String(cString: rd_kafka_message_errstr(message)))",
                    "kafka.topic": "\(RDKafkaMessage.topicName(message))"])
                if messages.isEmpty, ContinuousClock.now >= deadline { return messages }
            }
        }
        return messages
    }
}
