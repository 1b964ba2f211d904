import EventSourcing
import Foundation
import ServiceTesting
import Testing

/// A seat that one request may book: the booking event's id is the request id, so a repeated request finds its booking.
enum Seat: Aggregate {
    struct State: Codable, Sendable, Equatable {
        var bookedBy: UUID?
    }

    struct Booked: EventPayload {
        static let eventType = "SeatBooked"
        var note: String
    }

    enum Event: Sendable, Equatable {
        case booked(request: UUID, note: String)
    }

    enum Command: Sendable {
        case book(request: UUID, note: String)
    }

    enum Rejection: Error, Equatable {
        case taken
    }

    static let initialState = State()
    static let eventTypes = EventTypeMap<Event>()
        .registering(Booked.self, identified: { .booked(request: $1, note: $0.note) })

    static func apply(_ state: State, _ event: Event) -> State {
        switch event {
        case .booked(let request, _): State(bookedBy: state.bookedBy ?? request)
        }
    }

    static func decide(_ command: Command, _ state: State) throws -> [Event] {
        switch command {
        case .book(let request, let note):
            if state.bookedBy == request { return [] }
            guard state.bookedBy == nil else { throw Rejection.taken }
            return [.booked(request: request, note: note)]
        }
    }

    static func payload(of event: Event) -> any EventPayload {
        switch event {
        case .booked(_, let note): Booked(note: note)
        }
    }

    static func eventID(of event: Event) -> UUID? {
        switch event {
        case .booked(let request, _): request
        }
    }
}

@Suite("Aggregates: answers computed from the state, event ids fixed by the domain")
struct AggregateDecisionTests {
    @Test("a fixed event id is decided purely and read back from the stored envelope")
    func pureFixedIDs() throws {
        let request = UUID.v4()
        #expect(try Seat.decide(.book(request: request, note: "a"), Seat.initialState) == [.booked(request: request, note: "a")])
        #expect(Seat.eventID(of: .booked(request: request, note: "a")) == request)
        #expect(Counter.eventID(of: .incremented(by: 1)) == nil)
        let booked = Seat.apply(Seat.initialState, .booked(request: request, note: "a"))
        #expect(try Seat.decide(.book(request: request, note: "again"), booked).isEmpty)
        #expect(throws: Seat.Rejection.taken) { try Seat.decide(.book(request: UUID.v4(), note: "b"), booked) }
    }

    @Test("execute(on:deciding:) answers with what the decision computed from the loaded state", arguments: TestBackend.enabled)
    func answersFromState(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            let counters = AggregateRepository<Counter, AnyEventStore>(store: AnyEventStore(store))
            try await counters.execute(.open(limit: 10), on: "c")
            let before = try await counters.execute(on: "c") { loaded in
                (try Counter.decide(.increment(by: 3), loaded.state), loaded.state.value)
            }
            #expect(before == 0)
            let unchanged = try await counters.execute(on: "c") { loaded in ([Counter.Event](), loaded.version) }
            #expect(unchanged == 2)
            #expect(try await store.readStream("c").count == 2)
            #expect(try await counters.load("c").state.value == 3)
        }
    }

    @Test("the aggregate's event id is stored; a same-id event of a concurrent command is a conflict, decided again on retry",
          arguments: TestBackend.enabled)
    func fixedIDsAndConflicts(backend: TestBackend) async throws {
        try await withFreshStore(backend) { store, _ in
            let seats = AggregateRepository<Seat, AnyEventStore>(store: AnyEventStore(store))
            let request = UUID.v4()
            // A concurrent same-key command got there first, with other content (its own clock reading).
            try await store.append(try Seat.Booked(note: "first").newEvent(id: request), to: "seat-1", expectedVersion: .noStream)
            let losing = Seat.Event.booked(request: request, note: "second")
            await #expect(throws: EventStoreError.self) {
                try await seats.execute(on: "seat-1") { _ in ([losing], ()) }
            }
            var attempts = 0
            let again = try await seats.execute(on: "seat-1", retries: 1) { loaded in
                attempts += 1
                // The first attempt decides as if it had loaded before the other command appended.
                let state = attempts == 1 ? Seat.initialState : loaded.state
                return (try Seat.decide(.book(request: request, note: "second"), state), state.bookedBy == nil ? "booked" : "found")
            }
            #expect(again == "found" && attempts == 2)
            let stored = try await store.readStream("seat-1")
            #expect(stored.map(\.eventID) == [request])
            #expect(try await seats.load("seat-1").state.bookedBy == request)

            let other = UUID.v4()
            try await seats.execute(.book(request: other, note: "x"), on: "seat-2")
            #expect(try await store.readStream("seat-2").map(\.eventID) == [other])
        }
    }

    @Test("only a moved version or a taken event id counts as a concurrent change")
    func concurrentChangeErrors() {
        #expect(EventStoreError.wrongExpectedVersion(streamID: "s", expected: .exact(1), actual: 2).isConcurrentChange)
        #expect(EventStoreError.duplicateEventID(UUID.v4(), streamID: "s").isConcurrentChange)
        #expect(!EventStoreError.invalidAppend("no events").isConcurrentChange)
        #expect(!EventStoreError.incompatibleSchema("v9").isConcurrentChange)
    }
}
