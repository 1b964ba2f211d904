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
