import Contracts
import EventSourcing
import Foundation
@testable import Messaging
import ServiceLifecycle
import ServiceTesting
import Testing

/// `UserNotifier.Triggers`: the notifier reads only the event types its rules can notify on, and is woken only by the
/// appends its `wakes` test accepts — a busy log (a position update per fix) no longer wakes it for every append — yet
/// nothing is dropped: an event the test passed over is still read and notified on at the next wake-up or poll.
@Suite("User notifier: trigger types and wake-ups")
struct UserNotifierTriggersTests {
    static let quiet = LoopbackServer.quietLogger
    static let rider = UUID(uuidString: "0190f0e0-0000-7000-8000-000000000001")!

    /// Notifies the rider of every `Ping`; throws on `Other`, which the notifier must therefore never read.
    static let rules: UserNotifier.Rules = { event in
        if event.eventType == "Other" { throw TestSetupError("the notifier read an event outside its trigger types") }
        guard event.eventType == "Ping" else { return nil }
        return UserNotified(notificationId: UserNotifications.notificationID(for: event.eventID), userId: rider, kind: .navigationInstruction,
                            title: "ping \(event.position)", body: "ping", data: [:], occurredAt: Date(timeIntervalSince1970: 0))
    }

    /// Wakes for a `Ping` whose payload says so.
    static let triggers = UserNotifier.Triggers(types: ["Ping"], wakes: { $0.payload.range(of: Data(#""wake":true"#.utf8)) != nil })

    static func notified(_ store: AnyEventStore) async throws -> [String] {
        try await store.readStream(UserNotifications.streamID(user: rider)).map { try $0.decode(UserNotified.self).title }
    }

    @Test("a trigger the wake test passes over is not announced, but is notified with the next one that wakes the notifier; other types are never read",
          arguments: TestBackend.enabled)
    func passedOverNotDropped(_ backend: TestBackend) async throws {
        try await backend.withServiceStorage("notifier-triggers", logger: Self.quiet) { storage in
            let store = AnyEventStore(storage.store)
            // A poll far longer than the test: only wake-ups bring the notifier back.
            let notifier = UserNotifier(store: store, checkpoints: storage.checkpoints, rules: Self.rules, triggers: Self.triggers,
                                        pollInterval: .seconds(600), logger: Self.quiet)
            let group = ServiceGroup(configuration: .init(services: [notifier], logger: Self.quiet))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                try await waitUntil("the notifier is live", timeout: .seconds(30)) { if case .live = notifier.status { true } else { false } }
                _ = try await store.append(NewEvent(eventType: "Other", payload: Data("{}".utf8)), to: "other-1", expectedVersion: .any)
                _ = try await store.append(NewEvent(eventType: "Ping", payload: Data(#"{"wake":false}"#.utf8)), to: "ping-1", expectedVersion: .any)
                try await Task.sleep(for: .milliseconds(500))
                #expect(try await Self.notified(store).isEmpty, "neither append woke the notifier")

                _ = try await store.append(NewEvent(eventType: "Ping", payload: Data(#"{"wake":true}"#.utf8)), to: "ping-2", expectedVersion: .any)
                try await waitUntil("both pings are notified", timeout: .seconds(30)) { (try? await Self.notified(store).count) == 2 }
                #expect(try await Self.notified(store) == ["ping 2", "ping 3"])
                if case .failed(_, _, let reason) = notifier.status { Issue.record("the notifier stopped: \(reason)") }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            // The checkpoint was saved with the batch that notified: at or past the last ping.
            #expect(try await storage.checkpoints.position(of: UserNotifier.checkpointName) >= 3)
        }
    }
}
