import Synchronization

/// Wakes in-process readers when this process commits new events.
///
/// Readers always re-read the log after waking, so a missed or spurious wake-up costs latency, never correctness.
final class AppendNotifier: Sendable {
    private struct State {
        var head: Int64 = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Records that events up to `position` committed and wakes every waiter.
    func committed(upTo position: Int64) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.head = max(state.head, position)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns when a commit past `position` is announced, after `timeout`, or on cancellation.
    func wait(after position: Int64, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            let id = state.withLock { state -> Int in
                defer { state.nextID += 1 }
                return state.nextID
            }
            group.addTask { await self.waitForCommit(after: position, id: id) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            self.resume(id)
        }
    }

    private func waitForCommit(after position: Int64, id: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if state.head > position || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            self.resume(id)
        }
    }

    private func resume(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}
