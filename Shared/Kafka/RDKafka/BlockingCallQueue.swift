import Dispatch

/// A client's own serial queue for librdkafka calls that block (flush, consumer poll, commit, close, destroy),
/// so they never occupy a thread of Swift's cooperative pool. Serial order also keeps the handle alive under them.
struct BlockingCallQueue: Sendable {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `body` on the queue and resumes with its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result(catching: body)) }
        }
    }

    /// Runs a non-throwing `body` on the queue and resumes with its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}

extension Duration {
    /// Whole milliseconds, clamped to librdkafka's `int` timeouts (negative becomes 0).
    var kafkaMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return seconds < 0 ? 0 : .max }
        let total = milliseconds.partialValue + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(total, 0))
    }
}
