import CRdKafka
import Logging

/// An idempotent Kafka producer whose ``send(_:)`` returns only once the cluster has acknowledged every message.
///
/// librdkafka properties it always sets, whatever ``KafkaConfiguration/properties`` says:
/// `enable.idempotence=true` (no duplicates or reordering from retries), `acks=all` and
/// `partitioner=murmur2_random` (the Java client's key hashing, so every client maps a key to the same partition).
/// Defaults (overridable through ``KafkaConfiguration/properties``): `socket.nagle.disable=true` and `linger.ms=1`
/// (the relay sends what its log holds and waits for the acknowledgement, so batching longer only adds latency).
/// Everything else keeps librdkafka's defaults, notably `message.timeout.ms=300000` (five minutes): how long ``send(_:)``
/// keeps retrying while brokers are unreachable before it reports a failure.
///
/// Threads: a dedicated poll thread calls `rd_kafka_poll` to serve delivery reports; enqueueing, flushing and
/// shutting down run on the producer's own serial queue, never on Swift's cooperative pool. Call ``shutdown(flushTimeout:)``
/// (or run the producer as a `Service`) before dropping it.
public final class KafkaProducer: Sendable {
    private let handle: RDKafkaHandle
    private let deliveries: DeliveryTracker
    private let calls: BlockingCallQueue
    private let pollLoop: RDKafkaPollLoop
    private let logger: Logger

    /// Creates the producer and starts its poll thread. Connecting happens in the background.
    /// - Throws: ``KafkaError`` when a property is unknown or invalid.
    public init(configuration: KafkaConfiguration, logger: Logger) throws {
        let properties = configuration.librdkafkaProperties(
            defaults: ["socket.nagle.disable": "true", "linger.ms": "1"],
            invariants: ["enable.idempotence": "true", "acks": "all", "partitioner": "murmur2_random"])
        let deliveries = DeliveryTracker()
        handle = try RDKafkaHandle.make(
            type: RD_KAFKA_PRODUCER, properties: properties,
            context: RDKafkaClientContext(logger: logger, deliveries: deliveries)
        ) { configuration in
            rd_kafka_conf_set_dr_msg_cb(configuration) { _, message, opaque in
                guard let message, let context = RDKafkaClientContext.from(opaque: opaque) else { return }
                let id = UInt(bitPattern: message.pointee._private)
                if context.deliveries?.complete(id, code: message.pointee.err) != true {
                    context.logger.warning("delivery report for a message no send(_:) is waiting for")
                }
            }
        }
        self.deliveries = deliveries
        self.logger = logger
        calls = BlockingCallQueue(label: "waypoint.kafka.producer.\(handle.name)")
        pollLoop = RDKafkaPollLoop(handle: handle, label: "waypoint.kafka.producer-poll.\(handle.name)")
    }

    deinit {
        if !handle.isDestroyed {
            logger.warning("KafkaProducer released without shutdown(); purging undelivered messages")
            close(flushTimeout: .zero)
        }
    }

    /// Publishes `messages` and returns once librdkafka has reported the delivery of every one of them.
    ///
    /// Messages are enqueued in order (per key, they reach their partition in that order); when librdkafka's local
    /// queue is full, the producer serves delivery reports and retries. The call keeps waiting through broker outages
    /// for up to `message.timeout.ms`. It does not react to task cancellation: once enqueued, messages may be
    /// delivered anyway, and the caller must learn whether they were.
    /// - Throws: ``KafkaError`` after every message has an outcome, when any could not be enqueued or delivered
    ///   (later messages of the call are then not enqueued at all); the error counts the failures.
    public func send(_ messages: [KafkaOutgoingMessage]) async throws {
        guard !messages.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let batch = DeliveryBatch(count: messages.count, continuation: continuation)
            calls.queue.async { [self] in enqueue(messages, for: batch) }
        }
    }

    /// Waits up to `timeout` until every message enqueued so far has its delivery report.
    /// - Throws: ``KafkaError`` (`_TIMED_OUT`) when messages are still outstanding at the deadline.
    public func flush(timeout: Duration) async throws {
        try await calls.run { [handle] in
            guard !handle.isDestroyed else { throw KafkaError.clientClosed("flush") }
            let code = rd_kafka_flush(handle.pointer, timeout.kafkaMilliseconds)
            guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError(code: code, operation: "flush",
                                 reason: "\(rd_kafka_outq_len(handle.pointer)) messages or requests still outstanding")
            }
        }
    }

    /// Flushes for up to `flushTimeout`, fails whatever is still undelivered, stops the poll thread and destroys the
    /// librdkafka handle. Idempotent; afterwards ``send(_:)`` and ``flush(timeout:)`` throw.
    /// - Parameter flushTimeout: How long to wait for outstanding deliveries. Default 10 seconds.
    public func shutdown(flushTimeout: Duration = .seconds(10)) async {
        await calls.run { [self] in close(flushTimeout: flushTimeout) }
    }

    /// Messages delivered since the producer started.
    public var deliveredMessageCount: Int { deliveries.counts.delivered }

    /// Messages whose delivery failed (or was abandoned at shutdown) since the producer started.
    public var failedMessageCount: Int { deliveries.counts.failed }

    /// Messages enqueued whose delivery report has not arrived yet.
    public var pendingDeliveryCount: Int { deliveries.pendingCount }

    /// The value librdkafka uses for `property` (for example `"enable.idempotence"`), including implied settings;
    /// `nil` for an unknown property or after shutdown.
    public func effectiveProperty(_ property: String) -> String? {
        try? handle.withLiveHandle("read configuration") { RDKafkaConfig.effectiveValue(of: property, handle: $0) }
    }

    // MARK: On the producer's serial queue

    private func enqueue(_ messages: [KafkaOutgoingMessage], for batch: DeliveryBatch) {
        guard !handle.isDestroyed else {
            batch.record(.clientClosed("send"), count: messages.count)
            return
        }
        for (index, message) in messages.enumerated() {
            let id = deliveries.register(batch, topic: message.topic)
            let code = enqueueWaitingForSpace(message, id: id)
            guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
                // Stop here: sending later messages would reorder them ahead of this one on a retry.
                deliveries.cancel(id)
                batch.record(KafkaError(code: code, operation: "produce to \(message.topic)"), count: messages.count - index)
                return
            }
        }
    }

    private func enqueueWaitingForSpace(_ message: KafkaOutgoingMessage, id: UInt) -> rd_kafka_resp_err_t {
        while true {
            let code = RDKafkaProduce.enqueue(message, opaque: id, on: handle.pointer)
            guard code == RD_KAFKA_RESP_ERR__QUEUE_FULL else { return code }
            // The local queue (queue.buffering.max.messages/kbytes) is full: serve reports until space frees up.
            rd_kafka_poll(handle.pointer, 100)
        }
    }

    private func close(flushTimeout: Duration) {
        guard !handle.isDestroyed else { return }
        if rd_kafka_flush(handle.pointer, flushTimeout.kafkaMilliseconds) != RD_KAFKA_RESP_ERR_NO_ERROR {
            logger.warning("shutting down with \(deliveries.pendingCount) undelivered messages; purging them")
            rd_kafka_purge(handle.pointer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT)
            rd_kafka_poll(handle.pointer, 0)  // serves the purge reports: those callers see _PURGE_QUEUE/_PURGE_INFLIGHT
        }
        pollLoop.stop()
        handle.destroy()
        deliveries.failAll(.clientClosed("deliver"))
    }
}
