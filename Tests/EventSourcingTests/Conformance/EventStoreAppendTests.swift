import EventSourcing
import Foundation
import GRDB
import ServiceTesting
import Testing

@Suite("Event store conformance: appends")
struct EventStoreAppendTests {
    @Test("a first append to a new stream gets versions 1…n and positions 1…n, and reads back field for field",
          arguments: TestBackend.enabled)
    func firstAppend(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            let metadata = EventMetadata(correlationID: UUID(), causationID: UUID(), actorID: "user-1",
                                         traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            let events = [NewEvent.note("a", metadata: metadata), .note("b"), .note("c")]
            let before = Date().roundedToMicroseconds
            let result = try await store.append(events, to: "note-1", expectedVersion: .noStream)
            #expect(result == AppendResult(streamID: "note-1", firstPosition: 1, lastPosition: 3, streamVersion: 3))

            let read = try await store.readStream("note-1")
            #expect(read.map(\.eventID) == events.map(\.eventID))
            #expect(read.map(\.streamVersion) == [1, 2, 3])
            #expect(read.map(\.position) == [1, 2, 3])
            #expect(read[0].metadata == metadata)
            #expect(read[1].metadata == EventMetadata())
            #expect(read[0].payload == events[0].payload)
            #expect(try read[0].decode(Note.self) == Note(text: "a"))
            #expect(read.allSatisfy { $0.eventType == "NoteAdded" && $0.schemaVersion == 1 && $0.streamID == "note-1" })
            #expect(read[0].recordedAt >= before.addingTimeInterval(-1) && read[0].recordedAt <= Date().addingTimeInterval(1))
            #expect(try await store.readAll(after: 0, limit: 10) == read)
            #expect(try await store.headPosition() == 3)
            #expect(try await store.streamVersion("note-1") == 3)
            #expect(try await store.streamVersion("nothing") == 0)
        }
    }

    @Test("a wrong expected version is a typed conflict naming the actual version", arguments: TestBackend.enabled)
    func wrongExpectedVersion(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.append([.note("a"), .note("b")], to: "s", expectedVersion: .noStream)
            await #expect(throws: EventStoreError.wrongExpectedVersion(streamID: "s", expected: .noStream, actual: 2)) {
                try await store.append([.note("x")], to: "s", expectedVersion: .noStream)
            }
            await #expect(throws: EventStoreError.wrongExpectedVersion(streamID: "s", expected: .exact(1), actual: 2)) {
                try await store.append([.note("x")], to: "s", expectedVersion: .exact(1))
            }
            await #expect(throws: EventStoreError.wrongExpectedVersion(streamID: "new", expected: .exact(3), actual: 0)) {
                try await store.append([.note("x")], to: "new", expectedVersion: .exact(3))
            }
            let exact = try await store.append([.note("c")], to: "s", expectedVersion: .exact(2))
            #expect(exact.streamVersion == 3)
            let any = try await store.append([.note("d")], to: "s", expectedVersion: .any)
            #expect(any.streamVersion == 4 && any.firstPosition == 4)
            #expect(try await store.headPosition() == 4)
        }
    }

    @Test("retrying the same event ids at the same expected version returns the original result", arguments: TestBackend.enabled)
    func idempotentRetry(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            let events = [NewEvent.note("a"), .note("b")]
            let first = try await store.append(events, to: "s", expectedVersion: .noStream)
            try await store.append([.note("c")], to: "s", expectedVersion: .exact(2))
            let retry = try await store.append(events, to: "s", expectedVersion: .noStream)
            #expect(retry == first)
            let retryAny = try await store.append(events, to: "s", expectedVersion: .any)
            #expect(retryAny == first)
            #expect(try await store.headPosition() == 3)
        }
    }

    @Test("an event id reused with different content, stream or version is a typed error", arguments: TestBackend.enabled)
    func duplicateEventID(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            let id = UUID()
            try await store.append([.note("a", id: id)], to: "s", expectedVersion: .noStream)
            await #expect(throws: EventStoreError.duplicateEventID(id, streamID: "s")) {
                try await store.append([.note("changed", id: id)], to: "s", expectedVersion: .noStream)
            }
            await #expect(throws: EventStoreError.duplicateEventID(id, streamID: "other")) {
                try await store.append([.note("a", id: id)], to: "other", expectedVersion: .any)
            }
            await #expect(throws: EventStoreError.duplicateEventID(id, streamID: "s")) {
                try await store.append([.note("a", id: id)], to: "s", expectedVersion: .exact(1))
            }
            let partial = [NewEvent.note("a", id: id), .note("new")]
            await #expect(throws: EventStoreError.self) {
                try await store.append(partial, to: "s", expectedVersion: .noStream)
            }
            #expect(try await store.headPosition() == 1)
        }
    }

    @Test("malformed appends are rejected before anything is written", arguments: TestBackend.enabled)
    func malformedAppends(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            await #expect(throws: EventStoreError.invalidAppend("no events")) {
                try await store.append([], to: "s", expectedVersion: .any)
            }
            let id = UUID()
            await #expect(throws: EventStoreError.self) {
                try await store.append([.note("a", id: id), .note("b", id: id)], to: "s", expectedVersion: .any)
            }
            await #expect(throws: EventStoreError.self) {
                try await store.append([.note("a")], to: "", expectedVersion: .any)
            }
            let head = try await store.headPosition()
            #expect(head == 0)
        }
    }

    @Test("concurrent appends at one expected version: exactly one wins, the rest conflict", arguments: TestBackend.enabled)
    func optimisticConcurrency(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.append([.note("seed")], to: "s", expectedVersion: .noStream)
            let outcomes = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
                for index in 0..<20 {
                    group.addTask {
                        (try? await store.append([.note("\(index)")], to: "s", expectedVersion: .exact(1))) != nil
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try await store.streamVersion("s") == 2)
        }
    }

    @Test("the SQLite writer commits with synchronous = FULL (durable across power loss, not only process crashes)")
    func sqliteCommitsAreFullySynchronous() async throws {
        let database = TestDatabase(.sqlite)
        try await database.withStore { _, connection in
            guard case .sqlite(let db) = connection else { return }
            let level = try db.writerSynchronousLevel()
            #expect(level == 2)
        }
        await database.drop()
    }

    @Test("a derived write commits without fsync (NORMAL) and leaves the writer at FULL, also when it fails")
    func sqliteDerivedWritesRestoreFullSynchronous() async throws {
        struct Refused: Error {}
        let database = TestDatabase(.sqlite)
        try await database.withStore { store, connection in
            guard case .sqlite(let db) = connection else { return }
            let inside = try await db.writeDerived { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            #expect(inside == 1)
            #expect(try db.writerSynchronousLevel() == 2)
            await #expect(throws: Refused.self) {
                try await db.writeDerived { _ -> Int in throw Refused() }
            }
            #expect(try db.writerSynchronousLevel() == 2)
            // Appends after a derived write are durable again.
            _ = try await store.append([.note("after")], to: "s", expectedVersion: .any)
            #expect(try db.writerSynchronousLevel() == 2)
        }
        await database.drop()
    }

    @Test("transactions of cached statements: a throwing write rolls back, a throwing read leaves no snapshot open, a transaction SQLite ended is not committed")
    func sqliteTransactionEdges() async throws {
        struct Refused: Error {}
        let database = TestDatabase(.sqlite)
        try await database.withStore { store, connection in
            guard case .sqlite(let db) = connection else { return }
            try await db.write { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
            await #expect(throws: Refused.self) {
                try await db.write { db -> Void in
                    try db.execute(sql: "INSERT INTO t VALUES (1)")
                    throw Refused()
                }
            }
            #expect(try await db.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 0)
            // A read that throws must hand its reader back outside any transaction: a snapshot left open would show
            // every later read on that connection the old database (GRDB keeps up to five readers; use them all).
            for _ in 0..<8 {
                await #expect(throws: Refused.self) {
                    try await db.read { db -> Int in _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t"); throw Refused() }
                }
            }
            try await db.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
            for _ in 0..<8 {
                #expect(try await db.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
                #expect(try await db.read { db in db.isInsideTransaction })
            }
            // A body that ends the transaction itself (as SQLite does on a full disk or an I/O error) gets an error,
            // and what it wrote before is not committed.
            await #expect(throws: DatabaseError.self) {
                try await db.write { db in
                    try db.execute(sql: "INSERT INTO t VALUES (3)")
                    try db.execute(sql: "ROLLBACK")
                }
            }
            #expect(try await db.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
            // The writer is usable afterwards, for appends too.
            _ = try await store.append([.note("after")], to: "s", expectedVersion: .any)
            #expect(try await store.readStream("s").count == 1)
        }
        await database.drop()
    }

    @Test("appends survive closing and reopening the store", arguments: TestBackend.enabled)
    func durableAcrossReopen(backend: TestBackend) async throws {
        let database = TestDatabase(backend)
        let events = (0..<5).map { NewEvent.note("\($0)") }
        try await database.withStore { store, _ in
            try await store.append(events, to: "s", expectedVersion: .noStream)
        }
        try await database.withStore { store, _ in
            #expect(try await store.readStream("s").map(\.eventID) == events.map(\.eventID))
            let next = try await store.append([.note("after")], to: "s", expectedVersion: .exact(5))
            #expect(next.firstPosition == 6)
        }
        await database.drop()
    }
}
