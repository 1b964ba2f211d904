@testable import EventSourcing
import Foundation
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
}
