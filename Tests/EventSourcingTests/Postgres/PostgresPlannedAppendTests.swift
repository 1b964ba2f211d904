@testable import EventSourcing
import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceKit
import ServiceTesting
import Testing

/// The PostgreSQL store's one-statement appends (`es_append_planned`): a group planned against the head and stream
/// versions the store last knew, written only if they still hold — and the transaction whenever they do not. The
/// conformance suites prove the results; these prove which path was taken, and that a stale plan never writes.
@Suite("PostgreSQL appends in one statement: planned against the known head, checked under its lock",
       .enabled(if: TestBackend.enabled.contains(.postgres)))
struct PostgresPlannedAppendTests {
    @Test("after the first append (which learns the head), sequential appends take one statement each")
    func sequentialAppendsArePlanned() async throws {
        try await withStores(1) { stores in
            let store = stores[0]
            var versions = [Int64](repeating: 0, count: 3)
            for index in 0..<30 {
                let stream = index % 3
                let result = try await store.append([.note("n\(index)")], to: "s-\(stream)", expectedVersion: .exact(versions[stream]))
                versions[stream] = result.streamVersion
                #expect(result.firstPosition == Int64(index + 1))
            }
            let any = try await store.append([.note("any")], to: "s-1", expectedVersion: .any)
            #expect(any.streamVersion == 11 && any.firstPosition == 31)
            #expect(store.known.tally == .init(planned: 30, transactions: 1))
        }
    }

    @Test("two instances on one log: each plan that meets a moved head is planned again or falls back; positions stay gapless and versions right")
    func twoInstances() async throws {
        try await withStores(2) { stores in
            let (a, b) = (stores[0], stores[1])
            var versions = [Int64](repeating: 0, count: 2)
            for index in 0..<40 {
                let writer = index % 2
                let store = writer == 0 ? a : b
                let result = try await store.append([.note("n\(index)")], to: "writer-\(writer)", expectedVersion: .exact(versions[writer]))
                versions[writer] = result.streamVersion
                #expect(result.firstPosition == Int64(index + 1), "gapless positions in commit order")
            }
            // The head moved under every plan but the first of each store; the retry against the returned head wrote.
            #expect(a.known.tally.planned + b.known.tally.planned >= 38)

            // A stream another instance moved: a plan from an old version is refused and the transaction decides.
            _ = try await a.append([.note("a1")], to: "shared", expectedVersion: .noStream)
            _ = try await a.append([.note("a2")], to: "shared", expectedVersion: .any)  // a now knows version 2
            _ = try await b.append([.note("b3")], to: "shared", expectedVersion: .any)  // version 3, behind a's back
            await #expect(throws: EventStoreError.wrongExpectedVersion(streamID: "shared", expected: .exact(2), actual: 3)) {
                try await a.append([.note("late")], to: "shared", expectedVersion: .exact(2))
            }
            let before = a.known.tally
            let any = try await a.append([.note("a4")], to: "shared", expectedVersion: .any)
            #expect(any.streamVersion == 4, "a's remembered version (2) was refused by the server, not written as 3")
            #expect(try await a.readStream("shared").map(\.streamVersion) == [1, 2, 3, 4])
            #expect(a.known.tally.planned == before.planned + 1, "a had learnt version 3 from the refused append's transaction")
            let all = try await b.readAll(after: 0, limit: 1_000)
            #expect(all.map(\.position) == Array(1...Int64(all.count)))
        }
    }

    @Test("a retry of stored event ids is recognised by the transaction; a changed retry is a duplicate; nothing is written twice")
    func retries() async throws {
        try await withStores(1) { stores in
            let store = stores[0]
            _ = try await store.append([.note("first")], to: "other", expectedVersion: .noStream)
            let events = [NewEvent.note("a"), .note("b")]
            let first = try await store.append(events, to: "s", expectedVersion: .noStream)
            let again = try await store.append(events, to: "s", expectedVersion: .noStream)
            #expect(again == first)
            let changed = [events[0], NewEvent.note("b2", id: events[1].eventID)]
            await #expect(throws: EventStoreError.self) {
                try await store.append(changed, to: "s", expectedVersion: .noStream)
            }
            #expect(try await store.headPosition() == 3)
            #expect(try await store.readAll(after: 0, limit: 10).count == 3)
            let next = try await store.append([.note("c")], to: "s", expectedVersion: .exact(2))
            #expect(next.firstPosition == 4 && next.streamVersion == 3)
        }
    }

    @Test("es_append_planned writes nothing when the head or a stream moved")
    func staleAssumptionsWriteNothing() async throws {
        try await withStores(1) { stores in
            let store = stores[0]
            _ = try await store.append([.note("a"), .note("b")], to: "s", expectedVersion: .noStream)
            let row: (Int64, Int64) -> PostgresQuery = { head, version in
                let id = UUID()
                return """
                    SELECT es_append_planned(\(head), \(head + 1), ARRAY['s']::text[], ARRAY[\(version)]::int8[],
                        ARRAY[\(head + 1)]::int8[], ARRAY[\(id)]::uuid[], ARRAY['s']::text[], ARRAY[\(version + 1)]::int8[],
                        ARRAY['NoteAdded']::text[], ARRAY[1]::int4[], ARRAY['{}'::bytea]::bytea[], ARRAY['']::text[],
                        ARRAY['']::text[], ARRAY['']::text[], ARRAY['']::text[], ARRAY[now()]::timestamptz[])
                    """
            }
            func call(_ query: PostgresQuery) async throws -> Int64 {
                for try await outcome in try await store.database.client.query(query).decode(Int64.self) { return outcome }
                return .min
            }
            #expect(try await call(row(1, 2)) == 2, "a stale head answers the current one")
            #expect(try await call(row(2, 1)) == PostgresEventStore.plannedStreamMoved)
            #expect(try await store.headPosition() == 2)
            #expect(try await call(row(2, 2)) == PostgresEventStore.plannedWritten)
            #expect(try await store.headPosition() == 3)
            #expect(try await store.readStream("s").map(\.streamVersion) == [1, 2, 3])
        }
    }

    @Test("one-statement appends go over the store's own connection: a connection the server ended is replaced, and it is closed when the database stops")
    func appendConnection() async throws {
        let schema = TestDatabase(.postgres)
        let database = try PostgresServiceDatabase(url: try TestBackend.postgresURL, schema: schema.name, maximumConnections: 4)
        @Sendable func pid() async throws -> Int32? { try await Self.appendBackend(of: database) }
        let last: Int32 = try await database.withRunning {
            let store = try await PostgresEventStore(database: database)
            _ = try await store.append([.note("a")], to: "s", expectedVersion: .noStream)  // learns the head
            _ = try await store.append([.note("b")], to: "s", expectedVersion: .exact(1))
            #expect(store.known.tally.planned == 1)
            let first = try #require(try await pid())
            for try await name in try await database.client.query(
                "SELECT application_name FROM pg_stat_activity WHERE pid = \(first)").decode(String.self) {
                #expect(name == "waypoint-event-store-appends")
            }
            for try await _ in try await database.client.query("SELECT pg_terminate_backend(\(first))").decode(Bool.self) {}
            // The append that meets the ended connection fails (its outcome unknown to the store, which forgets what it
            // knew) or, once the close has been noticed, already goes over a new connection; the next one is planned.
            _ = try? await store.append([.note("c")], to: "s", expectedVersion: .exact(2))
            let version = try await store.streamVersion("s")
            _ = try await store.append([.note("d")], to: "s", expectedVersion: .exact(version))
            _ = try await store.append([.note("e")], to: "s", expectedVersion: .exact(version + 1))
            #expect(store.known.tally.planned >= 2)
            let second = try #require(try await pid())
            #expect(second != first)
            #expect(try await store.readStream("s").map(\.streamVersion) == Array(1...(version + 2)))
            return second
        }
        // Stopped with the database: the server no longer has it.
        let checker = try PostgresServiceDatabase(url: try TestBackend.postgresURL, maximumConnections: 1)
        let gone = try await checker.withRunning {
            var alive = true
            for _ in 0..<100 where alive {
                alive = false
                for try await count in try await checker.client.query("SELECT count(*) FROM pg_stat_activity WHERE pid = \(last)").decode(Int64.self) {
                    alive = count > 0
                }
                if alive { try await Task.sleep(for: .milliseconds(50)) }
            }
            return !alive
        }
        #expect(gone, "the append connection was closed when the database stopped")
        #expect(try await pid() == nil, "a stopped database opens no new append connection")
        await schema.drop()
    }

    @Test("an append from a task running on an event loop goes over that loop's own connection; one from elsewhere over the first loop's")
    func appendConnectionPerLoop() async throws {
        let schema = TestDatabase(.postgres)
        let database = try PostgresServiceDatabase(url: try TestBackend.postgresURL, schema: schema.name, maximumConnections: 4)
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        try await database.withRunning {
            let store = try await PostgresEventStore(database: database)
            _ = try await store.append([.note("first")], to: "s", expectedVersion: .noStream)  // learns the head
            var pids: [Int32] = []
            for (index, loop) in loops.enumerated() {
                let pid: Int32? = try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
                    #expect(loop.inEventLoop, "the task runs on loop \(index)")
                    _ = try await store.append([.note("on \(index)")], to: "s", expectedVersion: .exact(Int64(index + 1)))
                    #expect(loop.inEventLoop, "and is resumed there")
                    return try await Self.appendBackend(of: database)
                }
                pids.append(try #require(pid))
            }
            #expect(Set(pids).count == loops.count, "one connection per loop")
            #expect(store.known.tally.planned == loops.count)
            let offLoop = try await Self.appendBackend(of: database)
            #expect(offLoop == pids[0], "a caller on no loop takes the first loop's connection")
            // (Other tests' stores have append connections of their own on the same server: only ours are counted.)
            var named = 0
            for try await name in try await database.client.query(
                "SELECT application_name FROM pg_stat_activity WHERE pid = ANY(\(pids))").decode(String.self) {
                #expect(name == "waypoint-event-store-appends")
                named += 1
            }
            #expect(named == loops.count)
            #expect(try await store.readStream("s").map(\.streamVersion) == Array(1...Int64(loops.count + 1)))
        }
        await schema.drop()
    }

    /// The server process of the append connection the caller would take (`nil`: none to take).
    private static func appendBackend(of database: PostgresServiceDatabase) async throws -> Int32? {
        let pid: Int32?? = try await database.appendConnections.current.use { connection in
            for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: database.logger).decode(Int32.self) {
                return pid
            }
            return nil
        }
        return pid ?? nil
    }

    /// `count` store instances over one fresh schema (as several service instances share a database).
    private func withStores(_ count: Int, _ body: @Sendable ([PostgresEventStore]) async throws -> Void) async throws {
        let schema = TestDatabase(.postgres)
        var databases: [PostgresServiceDatabase] = []
        for _ in 0..<count {
            databases.append(try PostgresServiceDatabase(url: try TestBackend.postgresURL, schema: schema.name, maximumConnections: 4))
        }
        let opened = databases
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for database in opened { group.addTask { try? await database.run() } }
                defer { group.cancelAll() }
                var stores: [PostgresEventStore] = []
                for database in opened { stores.append(try await PostgresEventStore(database: database)) }
                try await body(stores)
            }
        } catch {
            await schema.drop()
            throw error
        }
        await schema.drop()
    }
}
