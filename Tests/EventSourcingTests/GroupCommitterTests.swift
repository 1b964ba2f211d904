@testable import EventSourcing
import Foundation
import Dispatch
import Synchronization
import Testing

/// The group committer's hand-over protocol under contention (its state is behind a lock since issue 23): every caller
/// gets exactly its own result, no caller waits forever, a failed group fails only its own callers, and only one group
/// is ever being committed at a time.
@Suite("GroupCommitter: every caller answered once, one group at a time, under contention")
struct GroupCommitterTests {
    @Test("64 writers × 100 appends, commits that suspend or fail: all answered, each with its own result, groups serial")
    func contention() async throws {
        let inFlight = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        let groups = Atomic<Int>(0)
        let position = Mutex<Int64>(0)
        let committer = GroupCommitter(maxEventsPerBatch: 50) { requests in
            if inFlight.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
            defer { inFlight.subtract(1, ordering: .sequentiallyConsistent) }
            let group = groups.add(1, ordering: .relaxed).newValue
            switch group % 3 {
            case 0: try await Task.sleep(for: .microseconds(200))
            case 1: await Task.yield()
            default: break
            }
            if group % 17 == 0 { throw EventStoreError.incompatibleSchema("group \(group) failed") }
            return requests.map { request in
                let first = position.withLock { $0 += 1; return $0 }
                // Each result names its own request's stream, so that a caller handed another's result would notice.
                return .success(AppendResult(streamID: request.streamID, firstPosition: first, lastPosition: first, streamVersion: 1))
            }
        }
        let outcomes = try await withThrowingTaskGroup(of: (ok: Int, failed: Int).self) { tasks in
            for writer in 0..<64 {
                tasks.addTask {
                    var ok = 0, failed = 0
                    for index in 0..<100 {
                        let stream = "w\(writer)-\(index)"
                        do {
                            let result = try await committer.submit(AppendRequest(streamID: stream, expectedVersion: .any,
                                                                                  events: [NewEvent.note("x")]))
                            #expect(result.streamID == stream)
                            ok += 1
                        } catch {
                            failed += 1
                        }
                    }
                    return (ok, failed)
                }
            }
            return try await tasks.reduce(into: (ok: 0, failed: 0)) { $0.ok += $1.ok; $0.failed += $1.failed }
        }
        #expect(outcomes.ok + outcomes.failed == 6_400, "every caller answered exactly once")
        #expect(Int64(outcomes.ok) == position.withLock { $0 }, "results only for requests of groups that committed")
        #expect(outcomes.failed > 0)
        let (overlaps, groupCount) = (overlapped.load(ordering: .relaxed), groups.load(ordering: .relaxed))
        #expect(!overlaps, "one group at a time")
        #expect(groupCount < 6_400, "concurrent callers were grouped")
    }

    @Test("a lone caller commits at once, without a trip through its executor's queue; concurrent callers still gather")
    func loneCallerDoesNotYield() async throws {
        let committer = GroupCommitter { requests in
            requests.map { .success(AppendResult(streamID: $0.streamID, firstPosition: 1, lastPosition: 1, streamVersion: 1)) }
        }
        let executor = CountingExecutor()
        let trips = await withTaskExecutorPreference(executor) { () -> Int in
            let before = executor.jobs
            for index in 0..<200 {
                _ = try? await committer.submit(AppendRequest(streamID: "lone-\(index)", expectedVersion: .any, events: [NewEvent.note("x")]))
            }
            return executor.jobs - before
        }
        // One yield per append before (200 trips); now none — a few for the preference itself at most.
        #expect(trips < 10, "a single writer's appends went through the executor's queue \(trips) times")

        // Writers that overlap are still gathered into groups.
        let groups = Atomic<Int>(0)
        let gathering = GroupCommitter { requests in
            groups.add(1, ordering: .relaxed)
            try await Task.sleep(for: .microseconds(300))
            return requests.map { .success(AppendResult(streamID: $0.streamID, firstPosition: 1, lastPosition: 1, streamVersion: 1)) }
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for writer in 0..<16 {
                tasks.addTask {
                    for index in 0..<20 {
                        _ = try await gathering.submit(AppendRequest(streamID: "w\(writer)-\(index)", expectedVersion: .any, events: [NewEvent.note("x")]))
                    }
                }
            }
            try await tasks.waitForAll()
        }
        #expect(groups.load(ordering: .relaxed) < 160, "320 appends of 16 writers in \(groups.load(ordering: .relaxed)) groups")
    }
}

/// Runs jobs on a serial queue and counts them.
private final class CountingExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "counting-executor")
    private let count = Atomic<Int>(0)

    var jobs: Int { count.load(ordering: .relaxed) }

    func enqueue(_ job: consuming ExecutorJob) {
        count.add(1, ordering: .relaxed)
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
