import Synchronization

/// One ``KafkaProducer/send(_:)`` call: counts its messages' outcomes and resumes the caller once every message has
/// one — a delivery report, or a failure to enqueue.
final class DeliveryBatch: Sendable {
    private struct State {
        var outstanding: Int
        var failures: [KafkaError] = []
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private let total: Int
    private let state: Mutex<State>

    init(count: Int, continuation: CheckedContinuation<Void, any Error>) {
        precondition(count > 0, "a delivery batch needs at least one message")
        total = count
        state = Mutex(State(outstanding: count, continuation: continuation))
    }

    /// Records the outcome of `count` messages: delivered when `error` is `nil`, failed otherwise.
    func record(_ error: KafkaError?, count: Int = 1) {
        let finished: (CheckedContinuation<Void, any Error>, [KafkaError])? = state.withLock { state in
            state.outstanding -= count
            if let error { state.failures.append(contentsOf: repeatElement(error, count: count)) }
            guard state.outstanding <= 0, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return (continuation, state.failures)
        }
        guard let (continuation, failures) = finished else { return }
        if let first = failures.first {
            continuation.resume(throwing: KafkaError(
                code: .init(rawValue: first.code), operation: first.operation,
                reason: "\(failures.count) of \(total) messages were not delivered; first: \(first.reason)"))
        } else {
            continuation.resume()
        }
    }
}
