import EventSourcing
import Foundation
import ServiceTesting
import Testing

/// `readAll(after:limit:types:)`: the SQLite store answers with one filtered query, PostgreSQL with the protocol's
/// default (pages of the whole log, filtered); both must give what reading everything and filtering gives.
@Suite("Event store conformance: reading only some event types")
struct EventStoreTypedReadTests {
    /// A `Tick` (the busy type a typed reader passes over).
    static func tick(_ number: Int) -> NewEvent {
        try! NewEvent(eventType: "Tick", encoding: ["n": number])
    }

    /// Every third event a note (positions 3, 6, …), the others ticks, on two streams.
    static func appendMixed(_ store: any EventStore, count: Int) async throws {
        for index in 1...count {
            let event = index.isMultiple(of: 3) ? NewEvent.note("n\(index)", number: index) : tick(index)
            try await store.append([event], to: "mixed-\(index % 2)", expectedVersion: .any)
        }
    }

    @Test("only the asked types, in order, as reading everything and filtering would; the page says how far it read",
          arguments: TestBackend.enabled)
    func onlyAskedTypes(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await Self.appendMixed(store, count: 30)
            let everything = try await store.readAll(after: 0, limit: 100)

            let notes = try await store.readAll(after: 0, limit: 100, types: ["NoteAdded"])
            #expect(notes.events == everything.filter { $0.eventType == "NoteAdded" })
            #expect(notes.events.map(\.position) == Array(stride(from: 3, through: 30, by: 3)))
            #expect(notes.scanned == 30, "read to the head")
            #expect(try notes.events.map { try $0.decode(Note.self).text } == stride(from: 3, through: 30, by: 3).map { "n\($0)" })

            // A full page ends at its last event: the next read resumes after it and misses nothing.
            let first = try await store.readAll(after: 0, limit: 4, types: ["NoteAdded"])
            #expect(first.events.map(\.position) == [3, 6, 9, 12])
            #expect(first.scanned == 12)
            let rest = try await store.readAll(after: first.scanned, limit: 100, types: ["NoteAdded"])
            #expect(rest.events.map(\.position) == Array(stride(from: 15, through: 30, by: 3)))

            // Several types; a type nobody wrote; no type at all.
            let both = try await store.readAll(after: 10, limit: 100, types: ["NoteAdded", "Tick", "Unknown"])
            #expect(both.events == Array(everything.dropFirst(10)))
            let none = try await store.readAll(after: 0, limit: 100, types: ["Unknown"])
            #expect(none.events.isEmpty && none.scanned == 30)
            let empty = try await store.readAll(after: 5, limit: 100, types: [])
            #expect(empty.events.isEmpty && empty.scanned == 30)
            // At the head nothing is read.
            let atHead = try await store.readAll(after: 30, limit: 100, types: ["NoteAdded"])
            #expect(atHead.events.isEmpty && atHead.scanned == 30)
            // Any position up to Int64.max is a valid `after` (a feed passes the client's on): nothing, no overflow.
            for after in [Int64.max, Int64.max - 1, Int64.max - Int64(TypedPage.scanLimit)] {
                let beyond = try await store.readAll(after: after, limit: 100, types: ["NoteAdded"])
                #expect(beyond.events.isEmpty && beyond.scanned == after)
            }
            // Through the type-erased store too.
            #expect(try await AnyEventStore(store).readAll(after: 0, limit: 100, types: ["NoteAdded"]).events == notes.events)
        }
    }

    @Test("a read passes over at most scanLimit positions of other types, then resumes where it stopped",
          arguments: TestBackend.enabled)
    func scanLimit(backend: TestBackend) async throws {
        let ticks = TypedPage.scanLimit + 50
        try await withFreshStore(backend) { store, _ in
            for start in stride(from: 0, to: ticks, by: 1_000) {
                try await store.append((start..<min(start + 1_000, ticks)).map(Self.tick), to: "ticks", expectedVersion: .any)
            }
            try await store.append(.note("after the ticks"), to: "notes", expectedVersion: .any)
            let first = try await store.readAll(after: 0, limit: 10, types: ["NoteAdded"])
            #expect(first.events.isEmpty)
            #expect(first.scanned == Int64(TypedPage.scanLimit), "stopped at the bound, not at the head")
            let second = try await store.readAll(after: first.scanned, limit: 10, types: ["NoteAdded"])
            #expect(second.events.map(\.position) == [Int64(ticks + 1)])
            #expect(second.scanned == Int64(ticks + 1))
        }
    }

    @Test("types are matched as read, after upcasting: a renamed type is found under its new name only",
          arguments: TestBackend.enabled)
    func upcastRenames(backend: TestBackend) async throws {
        let database = TestDatabase(backend)
        try await database.withStore { store, _ in
            try await store.append(try NewEvent(eventType: "NoteAdded", schemaVersion: 1, encoding: ["body": "hello"]), to: "s",
                                   expectedVersion: .noStream)
            try await store.append(Self.tick(1), to: "t", expectedVersion: .noStream)
        }
        let chain = UpcasterChain([
            .object(eventType: "NoteAdded", fromVersion: 1, toEventType: "NoteWritten") { object in
                object["text"] = object.removeValue(forKey: "body")
            },
        ])
        #expect(chain.storedTypes(readingAs: ["NoteWritten"]) == ["NoteWritten", "NoteAdded"])
        try await database.withStore(upcasters: chain) { store, _ in
            let renamed = try await store.readAll(after: 0, limit: 10, types: ["NoteWritten"])
            #expect(renamed.events.map(\.eventType) == ["NoteWritten"])
            #expect(renamed.events.map(\.schemaVersion) == [2])
            #expect(renamed.scanned == 2)
            let old = try await store.readAll(after: 0, limit: 10, types: ["NoteAdded"])
            #expect(old.events.isEmpty, "no event reads as NoteAdded any more")
            #expect(old.scanned == 2)
        }
        await database.drop()
    }
}
