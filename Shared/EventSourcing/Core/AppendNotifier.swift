import Synchronization

/// Wakes in-process readers when this process commits new events.
///
/// Readers always re-read the log after waking, so a missed or spurious wake-up costs latency, never correctness.
///
/// A reader of some event types only (a projection naming its types, a feed request with `types=`) waits for those:
/// a commit of other types does not wake it, so a log busy with one kind of event (a position update per fix) wakes
/// only the readers of that kind. Such a reader is still woken at once if the head already passed its position when
/// it starts waiting (it re-reads, finds nothing of its types, and waits again from the new head), and after its
/// timeout in any case. A reader may narrow its wake-ups further with a test of the committed event itself (`wakes`:
/// navigation's notifier wakes for a position update only when its payload carries an instruction).
final class AppendNotifier: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        /// The stored event types that wake it; `nil`: every commit.
        var types: Set<String>?
        /// Of the committed events of ``types``, the ones that wake it (`nil`: all of them).
        var wakes: (@Sendable (EventEnvelope) -> Bool)?
        /// When it returns if no commit woke it.
        var deadline: ContinuousClock.Instant
    }

    private struct State {
        var head: Int64 = 0
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
        /// The one sleeping task that returns waiters whose timeout passed: when it wakes, and its generation (a
        /// replaced timer that wakes anyway does nothing).
        var timer: (deadline: ContinuousClock.Instant, generation: Int, task: Task<Void, Never>)?
        var timerGeneration = 0
    }

    private let state = Mutex(State())

    /// Deadlines are rounded up to this grain, so readers whose timeouts end close together (projections polling
    /// every 100 ms) are returned by one timer wake-up. No reader returns before its timeout.
    static let deadlineGrain: Duration = .milliseconds(5)

    deinit {
        state.withLock { $0.timer?.task.cancel() }
    }

    /// How many readers are waiting (tests).
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Records that `events` (as stored, the last at `position`) committed, and wakes every waiter for any event, or
    /// for one of their types that its `wakes` test (if any) accepts.
    func committed(upTo position: Int64, events: [EventEnvelope]) {
        let types = Set(events.map(\.eventType))
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.head = max(state.head, position)
            var woken: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in state.waiters where Self.wakes(waiter, types: types, events: events) {
                woken.append(waiter.continuation)
                state.waiters.removeValue(forKey: id)
            }
            return woken
        }
        woken.forEach { $0.resume() }
    }

    private static func wakes(_ waiter: Waiter, types: Set<String>, events: [EventEnvelope]) -> Bool {
        guard let wanted = waiter.types else { return true }
        guard !wanted.isDisjoint(with: types) else { return false }
        guard let wakes = waiter.wakes else { return true }
        return events.contains { wanted.contains($0.eventType) && wakes($0) }
    }

    /// Returns when a commit past `position` (of one of the stored event `types`, when given, and one `wakes` accepts,
    /// when given) is announced, after `timeout`, or on cancellation.
    ///
    /// `wakes` runs under the notifier's lock for each committed event of `types`, on the committing task: a quick,
    /// pure test of the event as stored (before upcasting), such as a search of its payload. A `false` for an event
    /// that matters only delays the reader to its timeout, when it re-reads the log anyway.
    ///
    /// A wait is one continuation in the waiters' table: no child tasks and no timer of its own. One shared timer task
    /// sleeps until the earliest deadline and returns the waiters whose timeout passed; a commit resumes its waiters
    /// directly. (A task group with a waiting child and a sleeping child per wait cost two task starts, a timer and a
    /// cancellation each time a reader went back to waiting — on a busy log, after every commit.)
    func wait(after position: Int64, types: Set<String>? = nil, wakes: (@Sendable (EventEnvelope) -> Bool)? = nil, timeout: Duration) async {
        let deadline = Self.rounded(ContinuousClock.now.advanced(by: max(timeout, .zero)))
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.head > position || Task.isCancelled || timeout <= .zero { return true }
                    state.waiters[id] = Waiter(continuation: continuation, types: types, wakes: types == nil ? nil : wakes, deadline: deadline)
                    self.arm(&state, until: deadline)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            self.resume(id)
        }
    }

    /// `instant` rounded up to ``deadlineGrain`` (measured from an arbitrary but fixed origin).
    private static func rounded(_ instant: ContinuousClock.Instant) -> ContinuousClock.Instant {
        func nanoseconds(_ duration: Duration) -> Int64 {
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        }
        let grain = nanoseconds(deadlineGrain), since = nanoseconds(origin.duration(to: instant))
        guard since > 0 else { return instant }
        return origin.advanced(by: .nanoseconds((since + grain - 1) / grain * grain))
    }

    private static let origin = ContinuousClock.now

    /// Makes sure the timer wakes by `deadline`: a timer waking later is replaced (the usual case — every reader waits
    /// as long as the last time — finds one waking earlier and leaves it).
    private func arm(_ state: inout State, until deadline: ContinuousClock.Instant) {
        if let timer = state.timer, timer.deadline <= deadline { return }
        state.timer?.task.cancel()
        state.timerGeneration += 1
        let generation = state.timerGeneration
        let task = Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            self?.expire(generation: generation)
        }
        state.timer = (deadline, generation, task)
    }

    /// The timer of `generation` woke: returns every waiter whose deadline passed and sets the timer for the next one.
    private func expire(generation: Int) {
        let now = ContinuousClock.now
        let expired = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.timer?.generation == generation else { return [] }
            state.timer = nil
            var expired: [CheckedContinuation<Void, Never>] = []
            var next: ContinuousClock.Instant?
            for (id, waiter) in state.waiters {
                if waiter.deadline <= now {
                    expired.append(waiter.continuation)
                    state.waiters.removeValue(forKey: id)
                } else {
                    next = min(next ?? waiter.deadline, waiter.deadline)
                }
            }
            if let next { arm(&state, until: next) }
            return expired
        }
        expired.forEach { $0.resume() }
    }

    private func resume(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }
}
