import EventSourcing
import Foundation
import ServiceTesting
import Testing

@Suite("Projections: checkpoints, live updates, rebuild, poison events")
struct ProjectionRunnerTests {
    static func appendNotes(_ store: any EventStore, count: Int, streams: Int = 7) async throws {
        for index in 0..<count {
            try await store.append([try NoteAdded(text: "n\(index)", number: index).newEvent()], to: "note-\(index % streams)",
                                   expectedVersion: .any)
        }
    }

    static func expectedRows(count: Int, streams: Int = 7) -> Set<NoteCount> {
        Set((0..<min(count, streams)).map { stream in
            let members = stride(from: stream, to: count, by: streams).map { $0 }
            return NoteCount(streamID: "note-\(stream)", notes: Int64(members.count), total: Int64(members.reduce(0, +)),
                             lastText: "n\(members.last!)")
        })
    }

    @Test("a projection catches up, follows live appends, and resumes from its checkpoint after a restart",
          arguments: TestBackend.enabled)
    func catchUpLiveAndResume(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, connection in
            let model = NoteReadModel(connection: connection)
            try await Self.appendNotes(store, count: 30)
            let runner = model.runner(store)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await runner.run() }
                try await Self.appendNotes(store, count: 50)
                try await waitUntil("the runner is live at 80", timeout: .seconds(20)) { runner.status == .live(position: 80) }
                group.cancelAll()
            }
            var expected = Self.expectedRows(count: 30)
            for row in Self.expectedRows(count: 50) {
                let old = expected.first { $0.streamID == row.streamID }!
                expected.remove(old)
                expected.insert(NoteCount(streamID: row.streamID, notes: old.notes + row.notes, total: old.total + row.total,
                                          lastText: row.lastText))
            }
            #expect(try await model.rows() == expected)

            try await Self.appendNotes(store, count: 5)
            let restarted = model.runner(store)
            try await restarted.catchUp()
            #expect(restarted.status == .live(position: 85))
            #expect(try await model.rows().reduce(0) { $0 + $1.notes } == 85)
        }
    }

    @Test("a new schema version replaces the old tables and replays the log once; the runner is live with nothing new to apply",
          arguments: TestBackend.enabled)
    func schemaVersion(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, connection in
            let model = NoteReadModel(connection: connection)
            try await Self.appendNotes(store, count: 20)
            try await model.runner(store).catchUp()
            #expect(try await model.rows() == Self.expectedRows(count: 20))
            // Version 2 starts from nothing: the old rows are dropped, the whole log replayed.
            let upgraded = model.runner(store, schemaVersion: 2)
            try await upgraded.catchUp()
            #expect(try await model.rows() == Self.expectedRows(count: 20), "replayed once, not added to the old rows")
            try await model.runner(store, schemaVersion: 2).catchUp()
            #expect(try await model.rows() == Self.expectedRows(count: 20), "its checkpoint is kept: no second replay")
            // A running runner reports live after its first catch-up even when nothing is appended.
            let idle = model.runner(store, schemaVersion: 2)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await idle.run() }
                try await waitUntil("the idle runner is live at 20", timeout: .seconds(20)) { idle.status == .live(position: 20) }
                group.cancelAll()
            }
        }
    }

    @Test("a rebuilt read model equals the live one, also while appends continue during the rebuild",
          arguments: TestBackend.enabled)
    func rebuildEqualsLive(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, connection in
            let model = NoteReadModel(connection: connection)
            try await Self.appendNotes(store, count: 300)
            let runner = model.runner(store, batchSize: 64)
            try await runner.catchUp()
            let live = try await model.rows()
            #expect(live == Self.expectedRows(count: 300))

            let position = try await runner.rebuild()
            #expect(position == 300)
            #expect(try await model.rows() == live)

            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await runner.run() }
                group.addTask { try await Self.appendNotes(store, count: 200, streams: 11) }
                group.addTask { try await runner.rebuild() }
                try await group.next()
                try await group.next()
                try await waitUntil("the runner is live at 500", timeout: .seconds(20)) { runner.status == .live(position: 500) }
                group.cancelAll()
            }
            let afterConcurrentRebuild = try await model.rows()
            try await runner.rebuild()
            #expect(try await model.rows() == afterConcurrentRebuild)
            #expect(afterConcurrentRebuild.reduce(0) { $0 + $1.notes } == 500)
        }
    }

    @Test("an undecodable payload of a known type stops the projection loudly and nothing after it is applied",
          arguments: TestBackend.enabled)
    func poisonEventStops(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, connection in
            let model = NoteReadModel(connection: connection)
            try await Self.appendNotes(store, count: 3)
            try await store.append(NewEvent(eventType: "NoteAdded", payload: Data("{\"txt\":1}".utf8)), to: "bad", expectedVersion: .any)
            try await store.append(NewEvent(eventType: "SomethingNew", payload: Data("{}".utf8)), to: "x", expectedVersion: .any)
            try await Self.appendNotes(store, count: 2)
            let runner = model.runner(store, batchSize: 2)
            try await withThrowingTaskGroup(of: Void.self) { group in
                // A failed runner keeps running (so the service stays up and reports not-ready) until shutdown.
                group.addTask { try await runner.run() }
                try await waitUntil("the runner is unhealthy", timeout: .seconds(20)) { !runner.status.isHealthy }
                group.cancelAll()
            }
            guard case let .failed(position, eventPosition, reason) = runner.status else {
                Issue.record("expected failed, got \(runner.status)")
                return
            }
            #expect(position == 2 || position == 3)
            #expect(eventPosition == 4)
            #expect(reason.contains("NoteAdded"))
            #expect(try await model.rows().reduce(0) { $0 + $1.notes } == position)
        }
    }

    @Test("unknown event types are ignored by a tolerant projection", arguments: TestBackend.enabled)
    func unknownTypesIgnored(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, connection in
            let model = NoteReadModel(connection: connection)
            try await store.append(NewEvent(eventType: "FromTheFuture", payload: Data("{\"a\":1}".utf8)), to: "x", expectedVersion: .any)
            try await Self.appendNotes(store, count: 2)
            let runner = model.runner(store)
            try await runner.catchUp()
            #expect(runner.status == .live(position: 3))
            #expect(try await model.rows().count == 2)
        }
    }

    @Test("a projection naming its event types reads only those: the same rows, live at the head past other events, its checkpoint moved past them; rebuild equals live",
          arguments: TestBackend.enabled)
    func namedEventTypes(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, connection in
            let model = NoteReadModel(connection: connection)
            // More events of another type than one read passes over, between notes.
            let ticks = TypedPage.scanLimit + 500
            try await Self.appendNotes(store, count: 10)
            for start in stride(from: 0, to: ticks, by: 1_000) {
                try await store.append((start..<min(start + 1_000, ticks)).map(EventStoreTypedReadTests.tick), to: "ticks", expectedVersion: .any)
            }
            try await Self.appendNotes(store, count: 10)
            let head = Int64(20 + ticks)
            let runner = model.runner(store, batchSize: 4, eventTypes: ["NoteAdded"])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await runner.run() }
                try await waitUntil("the runner is live at the head", timeout: .seconds(30)) { runner.status == .live(position: head) }
                // Events of other types after the last note still move it on (what readers waiting for a position see),
                // and once the log is quiet the stored checkpoint reaches them too, with no later event of its types:
                // erasing a review's author waits for the `reviews` checkpoint to pass the head.
                try await store.append((0..<30).map(EventStoreTypedReadTests.tick), to: "ticks", expectedVersion: .any)
                try await waitUntil("the runner is live past the new ticks", timeout: .seconds(30)) { runner.status == .live(position: head + 30) }
                try await waitUntil("the checkpoint is stored at the quiet head", timeout: .seconds(30)) { try await model.checkpoint() == head + 30 }
                try await Self.appendNotes(store, count: 3)
                try await waitUntil("the runner is live at the last note", timeout: .seconds(30)) { runner.status == .live(position: head + 33) }
                group.cancelAll()
            }
            var expected = Self.expectedRows(count: 10)
            for more in [Self.expectedRows(count: 10), Self.expectedRows(count: 3)] {
                for row in more {
                    let old = expected.first { $0.streamID == row.streamID }!
                    expected.remove(old)
                    expected.insert(NoteCount(streamID: row.streamID, notes: old.notes + row.notes, total: old.total + row.total, lastText: row.lastText))
                }
            }
            #expect(try await model.rows() == expected)

            // A restart catches up past trailing events of other types and stores that position.
            try await store.append((0..<7).map(EventStoreTypedReadTests.tick), to: "ticks", expectedVersion: .any)
            let restarted = model.runner(store, batchSize: 4, eventTypes: ["NoteAdded"])
            try await restarted.catchUp()
            #expect(restarted.status == .live(position: head + 40))
            #expect(try await model.checkpoint() == head + 40)
            #expect(try await model.rows() == expected)

            // A rebuild reads the same events: the same rows, at the same position.
            #expect(try await restarted.rebuild() == head + 40)
            #expect(try await model.rows() == expected)
            // And a projection of every event agrees with it (the types named are all it ever applied).
            #expect(try await model.runner(store, schemaVersion: 2).rebuild() == head + 40)
            #expect(try await model.rows() == expected)
        }
    }
}
