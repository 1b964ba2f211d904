/// Batches concurrent appends into one transaction (group commit) without merging their concurrency checks.
///
/// The first caller becomes the leader and commits its own request plus everything queued meanwhile; when it is
/// done it hands leadership to the oldest waiting caller, so no caller serves others indefinitely.
actor GroupCommitter {
    /// Commits a batch in one transaction; returns one result per request, in order.
    typealias Commit = @Sendable ([AppendRequest]) async throws -> [Result<AppendResult, EventStoreError>]

    private enum Outcome: Sendable {
        case done(Result<AppendResult, any Error>)
        case lead
    }

    private struct Waiter {
        var request: AppendRequest
        var continuation: CheckedContinuation<Outcome, Never>
    }

    private let commit: Commit
    private let maxEventsPerBatch: Int
    private var queue: [Waiter] = []
    private var busy = false
    private static let maximumGatherYields = 8

    /// - Parameter maxEventsPerBatch: upper bound of events in one transaction (a single larger append still commits alone).
    init(maxEventsPerBatch: Int = 10_000, commit: @escaping Commit) {
        self.commit = commit
        self.maxEventsPerBatch = maxEventsPerBatch
    }

    /// Appends through the next group commit.
    func submit(_ request: AppendRequest) async throws -> AppendResult {
        if busy {
            let outcome = await withCheckedContinuation { queue.append(Waiter(request: request, continuation: $0)) }
            if case .done(let result) = outcome { return try result.get() }
        } else {
            busy = true
        }
        // A leader usually starts right after the previous group committed, while that group's callers have only
        // just been resumed and are on their way back with their next appends. Yield while more keep arriving
        // (at most `maximumGatherYields` times) so they join this group; committing at once makes groups alternate
        // between one request and all the others. A lone caller pays one trip through the executor's queue.
        var waiting = queue.count
        for _ in 0..<Self.maximumGatherYields {
            await Task.yield()
            if queue.count == waiting { break }
            waiting = queue.count
        }
        return try await lead(with: request).get()
    }

    private func lead(with request: AppendRequest) async -> Result<AppendResult, any Error> {
        var followers: [Waiter] = []
        var events = request.events.count
        while let next = queue.first, events + next.request.events.count <= maxEventsPerBatch {
            followers.append(queue.removeFirst())
            events += next.request.events.count
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
        if queue.isEmpty {
            busy = false
        } else {
            queue.removeFirst().continuation.resume(returning: .lead)
        }
        return results[0]
    }
}
