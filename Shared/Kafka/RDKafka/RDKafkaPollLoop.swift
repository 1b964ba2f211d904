import CRdKafka
import Dispatch
import Synchronization

/// Serves a producer's callbacks (delivery reports, error events) by calling `rd_kafka_poll` on a dedicated thread
/// until ``stop()``.
final class RDKafkaPollLoop: Sendable {
    private let stopRequested = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts polling `handle` every `interval` on a thread of its own named `label`.
    init(handle: RDKafkaHandle, label: String, interval: Duration = .milliseconds(100)) {
        let timeout = interval.kafkaMilliseconds
        DispatchQueue(label: label).async { [self] in
            while !stopRequested.load(ordering: .acquiring) {
                rd_kafka_poll(handle.pointer, timeout)
            }
            finished.signal()
        }
    }

    /// Asks the loop to stop and blocks until its last `rd_kafka_poll` returned. Call it once, off the cooperative pool.
    func stop() {
        let (exchanged, _) = stopRequested.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        if exchanged { finished.wait() }
    }
}
