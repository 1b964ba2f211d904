import Synchronization

/// Batches concurrent appends into one transaction (group commit) without merging their concurrency checks.
///
/// The first caller becomes the leader and commits its own request plus everything queued meanwhile; when it is
/// done it hands leadership to the oldest waiting caller, so no caller serves others indefinitely.
///
/// The state sits behind a lock rather than in an actor: a caller that finds no group in progress leads on its own
/// task, without a hop to an actor's executor and back — for a single writer that hop was one of the thread hand-offs
/// each append paid (issue 23). Only callers that arrive while a group is being written suspend.
final class GroupCommitter: Sendable {
    /// Commits a batch in one transaction; returns one result per request, in order.
    typealias Commit = @Sendable ([AppendRequest]) async throws -> [Result<AppendResult, EventStoreError>]

    private enum Outcome: Sendable {
        case done(Result<AppendResult, any Error>)
        case lead
    }

    private struct Waiter: Sendable {
        var request: AppendRequest
        var continuation: CheckedContinuation<Outcome, Never>
    }

    private struct State: ~Copyable {
        var queue: [Waiter] = []
        var busy = false
        /// Requests in the group committed last (whether callers are concurrent).
        var lastGroupSize = 0
    }

    private let commit: Commit
    private let maxEventsPerBatch: Int
    private let state = Mutex(State())
    private static let maximumGatherYields = 8

    /// - Parameter maxEventsPerBatch: upper bound of events in one transaction (a single larger append still commits alone).
    init(maxEventsPerBatch: Int = 10_000, commit: @escaping Commit) {
        self.commit = commit
        self.maxEventsPerBatch = maxEventsPerBatch
    }

    /// Appends through the next group commit.
    func submit(_ request: AppendRequest) async throws -> AppendResult {
        let leads = state.withLock { state in
            guard !state.busy else { return false }
            state.busy = true
            return true
        }
        if !leads {
            // Checked again under the lock that queues the caller: the group in progress may have ended meanwhile.
            let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let queued = state.withLock { state in
                    guard state.busy else {
                        state.busy = true
                        return false
                    }
                    state.queue.append(Waiter(request: request, continuation: continuation))
                    return true
                }
                if !queued { continuation.resume(returning: .lead) }
            }
            if case .done(let result) = outcome { return try result.get() }
        }
        // A leader usually starts right after the previous group committed, while that group's callers have only
        // just been resumed and are on their way back with their next appends. Yield while more keep arriving
        // (at most `maximumGatherYields` times) so they join this group; committing at once makes groups alternate
        // between one request and all the others. A lone caller — nobody queued, and the group before was one
        // request too — commits at once: a yield is a trip through the executor's queue, on the shared pool often
        // a wake-up of another thread, and a single writer paid it on every append (issue 23).
        var (waiting, previous) = state.withLock { ($0.queue.count, $0.lastGroupSize) }
        let gathers = waiting > 0 || previous > 1
        for _ in 0..<(gathers ? Self.maximumGatherYields : 0) {
            await Task.yield()
            let now = state.withLock { $0.queue.count }
            if now == waiting { break }
            waiting = now
        }
        return try await lead(with: request).get()
    }

    private func lead(with request: AppendRequest) async -> Result<AppendResult, any Error> {
        let followers = state.withLock { state in
            var followers: [Waiter] = []
            var events = request.events.count
            var taken = 0
            while taken < state.queue.count, events + state.queue[taken].request.events.count <= maxEventsPerBatch {
                events += state.queue[taken].request.events.count
                followers.append(state.queue[taken])
                taken += 1
            }
            state.queue.removeFirst(taken)
            state.lastGroupSize = 1 + followers.count
            return followers
        }
        let batch = [request] + followers.map(\.request)
        let results: [Result<AppendResult, any Error>]
        do {
            results = try await commit(batch).map { $0.mapError { $0 as any Error } }
        } catch {
            results = Array(repeating: .failure(error), count: batch.count)
        }
        for (index, follower) in followers.enumerated() {
            follower.continuation.resume(returning: .done(results[index + 1]))
        }
        let next = state.withLock { state -> Waiter? in
            guard !state.queue.isEmpty else {
                state.busy = false
                return nil
            }
            return state.queue.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        return results[0]
    }
}
