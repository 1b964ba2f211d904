import EventSourcing
import Foundation
import ServiceTesting
import Testing

@Suite("Event store conformance: reading, subscriptions, upcasting, snapshots")
struct EventStoreReadTests {
    @Test("read-all pages through every stream in global order", arguments: TestBackend.enabled)
    func readAllPages(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            for index in 0..<10 {
                try await store.append([.note("\(index)")], to: "s-\(index % 3)", expectedVersion: .any)
            }
            let firstPage = try await store.readAll(after: 0, limit: 4)
            let secondPage = try await store.readAll(after: 4, limit: 100)
            #expect(firstPage.map(\.position) == [1, 2, 3, 4])
            #expect(secondPage.map(\.position) == Array(5...10))
            #expect(try secondPage.map { try $0.decode(Note.self).text } == (4..<10).map(String.init))
            #expect(try await store.readAll(after: 10, limit: 5).isEmpty)
            let stream = try await store.readStream("s-1", fromVersion: 2, limit: 2)
            #expect(stream.map(\.streamVersion) == [2, 3])
            #expect(try stream.map { try $0.decode(Note.self).text } == ["4", "7"])
        }
    }

    @Test("a subscription catches up, then delivers live appends", arguments: TestBackend.enabled)
    func subscriptionCatchUpThenLive(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            for index in 0..<5 { try await store.append([.note("\(index)")], to: "s", expectedVersion: .any) }
            let collected = try await withThrowingTaskGroup(of: [Int64].self) { group in
                group.addTask { try await collect(from: store, after: 2, count: 6) }
                try await Task.sleep(for: .milliseconds(50))
                for index in 5..<8 { try await store.append([.note("\(index)")], to: "s", expectedVersion: .any) }
                return try await group.next()!
            }
            #expect(collected == [3, 4, 5, 6, 7, 8])
        }
    }

    @Test("8 concurrent writers × 1,000 appends with a live subscriber: every event seen once, in position order",
          arguments: TestBackend.enabled)
    func gaplessUnderConcurrency(backend: TestBackend) async throws {
        let writers = 8
        let appendsPerWriter = 1_000
        try await withFreshStore(backend) { store, _ in
            try await withThrowingTaskGroup(of: [Int64].self) { group in
                group.addTask { try await collect(from: store, after: 0, count: writers * appendsPerWriter) }
                for writer in 0..<writers {
                    group.addTask {
                        for index in 0..<appendsPerWriter {
                            let version = Int64(index)
                            try await store.append([.note("\(writer)-\(index)")], to: "writer-\(writer)",
                                                   expectedVersion: version == 0 ? .noStream : .exact(version))
                        }
                        return []
                    }
                }
                var seen: [Int64] = []
                for try await positions in group { seen += positions }
                #expect(seen == Array(1...Int64(writers * appendsPerWriter)))
            }
            #expect(try await store.headPosition() == Int64(writers * appendsPerWriter))
            for writer in 0..<writers {
                let stream = try await store.readStream("writer-\(writer)")
                #expect(try stream.map { try $0.decode(Note.self).text } == (0..<appendsPerWriter).map { "\(writer)-\($0)" })
            }
        }
    }

    @Test("upcasters map old schema versions on read, in a chain, without rewriting the stored event",
          arguments: TestBackend.enabled)
    func upcasting(backend: TestBackend) async throws {
        let database = TestDatabase(backend)
        let old = try NewEvent(eventType: "NoteAdded", schemaVersion: 1, encoding: ["body": "hello"])
        try await database.withStore { store, _ in
            try await store.append(old, to: "s", expectedVersion: .noStream)
        }
        let chain = UpcasterChain([
            .object(eventType: "NoteAdded", fromVersion: 1) { object in
                object["text"] = object.removeValue(forKey: "body")
            },
            .object(eventType: "NoteAdded", fromVersion: 2, toEventType: "NoteWritten") { object in
                object["number"] = 42
            },
        ])
        try await database.withStore(upcasters: chain) { store, _ in
            let read = try await store.readAll(after: 0, limit: 10)
            #expect(read.count == 1)
            #expect(read[0].eventType == "NoteWritten" && read[0].schemaVersion == 3)
            #expect(try read[0].decode(Note.self) == Note(text: "hello", number: 42))
            #expect(try await store.readStream("s")[0] == read[0])
        }
        try await database.withStore { store, _ in
            let stored = try await store.readStream("s")
            #expect(stored[0].payload == old.payload)
        }
        await database.drop()
    }

    @Test("the latest snapshot per stream is kept; an older one never replaces a newer one", arguments: TestBackend.enabled)
    func snapshots(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            #expect(try await store.loadSnapshot(of: "s") == nil)
            let newer = Snapshot(streamID: "s", streamVersion: 20, stateVersion: 1, state: Data("{\"n\":20}".utf8))
            try await store.saveSnapshot(Snapshot(streamID: "s", streamVersion: 10, stateVersion: 1, state: Data("{}".utf8)))
            try await store.saveSnapshot(newer)
            try await store.saveSnapshot(Snapshot(streamID: "s", streamVersion: 5, stateVersion: 1, state: Data("{}".utf8)))
            #expect(try await store.loadSnapshot(of: "s") == newer)
        }
    }
}

/// Reads a subscription until `count` events arrived; returns their positions.
func collect<Store: EventStore>(from store: Store, after position: Int64, count: Int) async throws -> [Int64] {
    var positions: [Int64] = []
    for try await batch in store.subscribe(after: position, batchSize: 100, pollInterval: .milliseconds(20)) {
        positions += batch.map(\.position)
        if positions.count >= count { break }
    }
    return positions
}
