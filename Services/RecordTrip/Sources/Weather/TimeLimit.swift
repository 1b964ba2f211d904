import Synchronization

/// A deadline the caller can rely on: the answer comes at the limit even when the work is slow to notice its
/// cancellation (a body read blocked inside AsyncHTTPClient notices only when the connection ends). A task group would
/// wait for such a child before returning, so the work runs in a task of its own and races a timer; the loser is
/// cancelled and finishes in the background.
enum TimeLimit {
    /// `work`'s result, or `onTimeout()` thrown once `limit` has passed; `CancellationError` when the caller is
    /// cancelled first.
    static func run<T: Sendable>(_ limit: Duration, onTimeout: @escaping @Sendable () -> any Error,
                                 _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(continuation, limit: limit, onTimeout: onTimeout, work: work)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }
}

/// One race between the work and the timer: the first to finish resumes the caller, once.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var finished = false
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>, limit: Duration, onTimeout: @escaping @Sendable () -> any Error,
               work: @escaping @Sendable () async throws -> T) {
        let cancelledBefore = state.withLock { state in
            if !state.finished { state.continuation = continuation }
            return state.finished
        }
        if cancelledBefore { return continuation.resume(throwing: CancellationError()) }
        let worker = Task {
            do { self.finish(.success(try await work())) } catch { self.finish(.failure(error)) }
        }
        let timer = Task {
            do { try await Task.sleep(for: limit) } catch { return }
            self.finish(.failure(onTimeout()))
        }
        let over = state.withLock { state in
            state.tasks = [worker, timer]
            return state.finished
        }
        if over { worker.cancel(); timer.cancel() }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
            guard !state.finished else { return (nil, []) }
            state.finished = true
            defer { state.continuation = nil }
            return (state.continuation, state.tasks)
        }
        tasks.forEach { $0.cancel() }
        continuation?.resume(with: result)
    }
}
