@testable import EventSourcing
import Foundation
import ServiceTesting
import Testing

@Suite("Append notifier: who is woken by a commit")
struct AppendNotifierTests {
    @Test("a reader of some types sleeps through commits of other types and wakes at one of its own; a reader of everything wakes at any")
    func typedWakeUps() async throws {
        let notifier = AppendNotifier()
        let typed = Task { await notifier.wait(after: 0, types: ["NoteAdded"], timeout: .seconds(600)) }
        try await waitUntil("the typed reader waits", timeout: .seconds(30)) { notifier.waiterCount == 1 }
        let untyped = Task { await notifier.wait(after: 0, timeout: .seconds(600)) }
        try await waitUntil("both readers wait", timeout: .seconds(30)) { notifier.waiterCount == 2 }

        notifier.committed(upTo: 1, types: ["Tick"])
        await untyped.value
        #expect(notifier.waiterCount == 1, "the typed reader still waits")

        notifier.committed(upTo: 2, types: ["Tick", "NoteAdded"])
        await typed.value
        #expect(notifier.waiterCount == 0)

        // Once the head is past its position, a typed reader returns at once whatever the types (it re-reads from
        // there): no commit announced before it started waiting is missed.
        let start = ContinuousClock.now
        await notifier.wait(after: 1, types: ["Other"], timeout: .seconds(600))
        #expect(ContinuousClock.now - start < .seconds(60))
        #expect(notifier.waiterCount == 0)
    }

    @Test("a typed reader not woken returns after its timeout")
    func typedTimeout() async {
        let notifier = AppendNotifier()
        notifier.committed(upTo: 5, types: ["Tick"])
        let start = ContinuousClock.now
        await notifier.wait(after: 5, types: ["NoteAdded"], timeout: .milliseconds(50))
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        #expect(notifier.waiterCount == 0)
    }
}
