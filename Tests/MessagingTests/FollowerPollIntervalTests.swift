@testable import EventSourcing
import Foundation
import GRDB
import Logging
@testable import Messaging
import PostgresNIO
import ServiceTesting
import Testing

/// `ServiceStorage.followerPollInterval`: how often an idle follower of a service's own log reads it again for appends
/// no in-process wake-up announces — 1 s on SQLite (the file is the service's own; other writers are operator commands
/// such as `auth create-admin`), 100 ms on PostgreSQL (scaled-out instances share the log).
@Suite("Followers of a service's own log: the idle poll interval per backend")
struct FollowerPollIntervalTests {
    static let quiet = LoopbackServer.quietLogger

    /// A projection with no tables: its runner's position shows what it read.
    struct PositionOnly: SQLiteProjection, PostgresProjection {
        var name: String { "position_only" }
        var tables: [String] { [] }
        func createTables(_ db: Database, _ tables: ProjectionTables) throws {}
        func apply(_ event: EventEnvelope, _ db: Database, _ tables: ProjectionTables) throws {}
        func createTables(_ connection: PostgresConnection, _ tables: ProjectionTables) async throws {}
        func apply(_ event: EventEnvelope, _ connection: PostgresConnection, _ tables: ProjectionTables) async throws {}
    }

    static func note(_ text: String) -> NewEvent {
        NewEvent(eventType: "NoteWritten", payload: Data(#"{"text":"\#(text)"}"#.utf8))
    }

    @Test("the interval per backend, and the projections and notifier a service builds from its storage use it",
          arguments: TestBackend.enabled)
    func intervalPerBackend(_ backend: TestBackend) async throws {
        try await backend.withServiceStorage("follower-poll", logger: Self.quiet) { storage in
            let expected: Duration = backend == .sqlite ? .seconds(1) : .milliseconds(100)
            #expect(storage.followerPollInterval == expected)
            let runner = storage.projection(sqlite: PositionOnly(), postgres: PositionOnly(), logger: Self.quiet)
            let polled = (runner as? ProjectionRunner<AnyEventStore, SQLiteProjectionTarget<PositionOnly>>)?.pollInterval
                ?? (runner as? ProjectionRunner<AnyEventStore, PostgresProjectionTarget<PositionOnly>>)?.pollInterval
            #expect(polled == expected)
            let notifier = storage.userNotifier(rules: { _ in nil }, triggers: UserNotifier.Triggers(types: ["NoteAdded"]), logger: Self.quiet)
            #expect(notifier.pollInterval == expected)
        }
    }

    @Test("SQLite: an append by another writer of the file (an operator command's process) still reaches an idle projection, within the interval")
    func otherWritersAppendsArrive() async throws {
        guard TestBackend.enabled.contains(.sqlite) else { return }
        let directory = TemporaryDirectory("waypoint-follower-poll")
        defer { directory.remove() }
        let settings = try TestBackend.sqlite.runtime("follower-poll", in: directory)
        try await ServiceStorage.withOpen(settings, logger: Self.quiet) { storage in
            let runner = storage.projection(sqlite: PositionOnly(), postgres: PositionOnly(), logger: Self.quiet)
            let running = Task { try await runner.run() }
            defer { running.cancel() }
            _ = try await storage.store.append([Self.note("own")], to: "note-1", expectedVersion: .noStream)
            try await Self.waitUntil(runner, reaches: 1, within: .seconds(10))

            // Another connection to the same file, as `auth create-admin` opens beside the running service: its append
            // wakes nobody in this process; the projection reads it at its next poll.
            guard case .sqlite(let path) = settings.backend else { Issue.record("not SQLite"); return }
            let other = try await SQLiteEventStore(database: try SQLiteServiceDatabase(path: path))
            _ = try await other.append([Self.note("other")], to: "note-2", expectedVersion: .noStream)
            let started = ContinuousClock.now
            try await Self.waitUntil(runner, reaches: 2, within: .seconds(10))
            let took = ContinuousClock.now - started
            #expect(took < .seconds(5), "seen after \(took); the interval is \(storage.followerPollInterval)")
        }
    }

    static func waitUntil(_ runner: any ProjectionRunning, reaches position: Int64, within limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        while runner.status.position < position {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(runner.name) stayed at \(runner.status) (expected position \(position))")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
