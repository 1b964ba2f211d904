@testable import EventSourcing
import Foundation
import ServiceTesting
import Testing

extension AppendNotifier {
    /// Announces one committed event of each of `types` (payload `payload`), the last at `position`.
    func committed(upTo position: Int64, types: [String], payload: String = "{}") {
        committed(upTo: position, events: types.enumerated().map { index, type in
            EventEnvelope(eventID: UUID(), streamID: "s", streamVersion: 1, position: position - Int64(types.count - 1 - index), eventType: type,
                          schemaVersion: 1, payload: Data(payload.utf8), metadata: EventMetadata(), recordedAt: Date())
        })
    }
}

@Suite("Append notifier: who is woken by a commit")
struct AppendNotifierTests {
    @Test("a reader with a test of the committed event sleeps through events of its types the test refuses, and wakes at one it accepts; other readers of those types wake at each")
    func wakeTest() async throws {
        let notifier = AppendNotifier()
        let choosy = Task {
            await notifier.wait(after: 0, types: ["Tracked"], wakes: { $0.payload.range(of: Data(#""instruction""#.utf8)) != nil },
                                timeout: .seconds(600))
        }
        try await waitUntil("the choosy reader waits", timeout: .seconds(30)) { notifier.waiterCount == 1 }
        let plain = Task { await notifier.wait(after: 0, types: ["Tracked"], timeout: .seconds(600)) }
        try await waitUntil("both readers wait", timeout: .seconds(30)) { notifier.waiterCount == 2 }

        notifier.committed(upTo: 1, types: ["Tracked"], payload: #"{"at":1}"#)
        await plain.value
        #expect(notifier.waiterCount == 1, "the choosy reader still waits")
        // Another type whose payload would pass the test: not one of the reader's types.
        notifier.committed(upTo: 2, types: ["Other"], payload: #"{"instruction":"left"}"#)
        #expect(notifier.waiterCount == 1)

        notifier.committed(upTo: 4, types: ["Tracked", "Tracked"], payload: #"{"instruction":"left"}"#)
        await choosy.value
        #expect(notifier.waiterCount == 0)
    }

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

        notifier.committed(upTo: 3, types: ["Tick", "NoteAdded"])
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

    @Test("one shared timer: a short wait after a long one returns at its own timeout, waits of different lengths each return after theirs, and a cancelled wait returns at once")
    func sharedTimer() async throws {
        let notifier = AppendNotifier()
        let long = Task { await notifier.wait(after: 0, timeout: .seconds(600)) }
        try await waitUntil("the long reader waits", timeout: .seconds(30)) { notifier.waiterCount == 1 }

        // The timer sleeps until the long reader's deadline; a shorter wait must bring it forward.
        let start = ContinuousClock.now
        await notifier.wait(after: 0, timeout: .milliseconds(40))
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(40))
        #expect(waited < .seconds(30), "the short wait was not held until the long one's deadline")
        #expect(notifier.waiterCount == 1, "the long reader still waits")

        // Several lengths at once: each returns after its own timeout, none before.
        try await withThrowingTaskGroup(of: (Duration, Duration).self) { group in
            for milliseconds in [10, 30, 30, 60, 90] {
                group.addTask {
                    let begun = ContinuousClock.now
                    await notifier.wait(after: 0, types: ["Other"], timeout: .milliseconds(milliseconds))
                    return (.milliseconds(milliseconds), ContinuousClock.now - begun)
                }
            }
            for try await (timeout, waited) in group { #expect(waited >= timeout) }
        }
        #expect(notifier.waiterCount == 1)

        // Cancellation returns the long reader well before its ten minutes.
        let cancelledAt = ContinuousClock.now
        long.cancel()
        await long.value
        #expect(ContinuousClock.now - cancelledAt < .seconds(30))
        #expect(notifier.waiterCount == 0)

        // A commit wakes a waiter whatever the timer is doing, and a zero timeout returns at once.
        let woken = Task { await notifier.wait(after: 0, timeout: .seconds(600)) }
        try await waitUntil("the reader waits", timeout: .seconds(30)) { notifier.waiterCount == 1 }
        notifier.committed(upTo: 1, types: ["Tick"])
        await woken.value
        await notifier.wait(after: 1, timeout: .zero)
        #expect(notifier.waiterCount == 0)
    }

    @Test("a thousand readers woken by commits and by timeouts, over and over, all return and none is left waiting")
    func churn() async {
        let notifier = AppendNotifier()
        await withTaskGroup(of: Void.self) { group in
            for reader in 0..<1_000 {
                group.addTask {
                    for round in 0..<5 {
                        await notifier.wait(after: Int64(round), types: reader % 2 == 0 ? nil : ["Other"],
                                            timeout: .milliseconds(Int64(1 + (reader + round) % 20)))
                    }
                }
            }
            group.addTask {
                for position in 1...50 {
                    notifier.committed(upTo: Int64(position), types: ["Tick"])
                    try? await Task.sleep(for: .milliseconds(2))
                }
            }
        }
        #expect(notifier.waiterCount == 0)
    }
}
