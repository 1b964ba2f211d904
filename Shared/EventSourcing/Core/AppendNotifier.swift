import Synchronization

/// Wakes in-process readers when this process commits new events.
///
/// Readers always re-read the log after waking, so a missed or spurious wake-up costs latency, never correctness.
///
/// A reader of some event types only (a projection naming its types, a feed request with `types=`) waits for those:
/// a commit of other types does not wake it, so a log busy with one kind of event (a position update per fix) wakes
/// only the readers of that kind. Such a reader is still woken at once if the head already passed its position when
/// it starts waiting (it re-reads, finds nothing of its types, and waits again from the new head), and after its
/// timeout in any case.
final class AppendNotifier: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        /// The stored event types that wake it; `nil`: every commit.
        var types: Set<String>?
    }

    private struct State {
        var head: Int64 = 0
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// How many readers are waiting (tests).
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Records that events up to `position`, of the stored event `types`, committed, and wakes every waiter for any
    /// event or for one of those types.
    func committed(upTo position: Int64, types: Set<String>) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.head = max(state.head, position)
            var woken: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in state.waiters where waiter.types.map({ !$0.isDisjoint(with: types) }) ?? true {
                woken.append(waiter.continuation)
                state.waiters.removeValue(forKey: id)
            }
            return woken
        }
        woken.forEach { $0.resume() }
    }

    /// Returns when a commit past `position` (of one of the stored event `types`, when given) is announced, after
    /// `timeout`, or on cancellation.
    func wait(after position: Int64, types: Set<String>? = nil, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            let id = state.withLock { state -> Int in
                defer { state.nextID += 1 }
                return state.nextID
            }
            group.addTask { await self.waitForCommit(after: position, types: types, id: id) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            self.resume(id)
        }
    }

    private func waitForCommit(after position: Int64, types: Set<String>?, id: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if state.head > position || Task.isCancelled { return true }
                    state.waiters[id] = Waiter(continuation: continuation, types: types)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            self.resume(id)
        }
    }

    private func resume(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }
}
