import CRdKafka
import Synchronization

/// Maps the per-message opaque that librdkafka hands back in each delivery report to the ``DeliveryBatch`` waiting for
/// it, and counts outcomes for metrics and tests.
final class DeliveryTracker: Sendable {
    private struct State {
        var nextID: UInt = 1
        var pending: [UInt: (batch: DeliveryBatch, topic: String)] = [:]
        var delivered = 0
        var failed = 0
    }

    private let state = Mutex(State())

    /// Registers one message of `batch` bound for `topic`; the returned id (never 0) becomes its opaque.
    func register(_ batch: DeliveryBatch, topic: String) -> UInt {
        state.withLock { state in
            let id = state.nextID
            state.nextID &+= 1
            if state.nextID == 0 { state.nextID = 1 }
            state.pending[id] = (batch, topic)
            return id
        }
    }

    /// Forgets a message librdkafka refused to enqueue (no report will come for it).
    func cancel(_ id: UInt) {
        _ = state.withLock { $0.pending.removeValue(forKey: id) }
    }

    /// Handles the delivery report for message `id`; returns `false` when the id is unknown.
    @discardableResult
    func complete(_ id: UInt, code: rd_kafka_resp_err_t) -> Bool {
        let entry = state.withLock { state in
            let entry = state.pending.removeValue(forKey: id)
            if entry != nil {
                if code == RD_KAFKA_RESP_ERR_NO_ERROR { state.delivered += 1 } else { state.failed += 1 }
            }
            return entry
        }
        guard let entry else { return false }
        entry.batch.record(code == RD_KAFKA_RESP_ERR_NO_ERROR
            ? nil : KafkaError(code: code, operation: "deliver to \(entry.topic)"))
        return true
    }

    /// Fails every message still waiting for a report, so no caller of `send` waits forever once the handle is gone.
    func failAll(_ error: KafkaError) {
        let entries = state.withLock { state in
            defer { state.pending.removeAll() }
            state.failed += state.pending.count
            return Array(state.pending.values)
        }
        for entry in entries { entry.batch.record(error) }
    }

    /// Messages delivered and failed since the producer started.
    var counts: (delivered: Int, failed: Int) {
        state.withLock { ($0.delivered, $0.failed) }
    }

    /// Messages enqueued whose delivery report has not arrived yet.
    var pendingCount: Int {
        state.withLock { $0.pending.count }
    }
}
