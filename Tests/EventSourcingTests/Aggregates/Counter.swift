import EventSourcing

/// A tiny aggregate for the repository tests: a bounded counter.
enum Counter: Aggregate {
    struct State: Codable, Sendable, Equatable {
        var value = 0
        var limit = 0
        var opened = false
    }

    struct Opened: EventPayload {
        static let eventType = "CounterOpened"
        var limit: Int
    }

    struct Incremented: EventPayload {
        static let eventType = "CounterIncremented"
        var by: Int
    }

    enum Event: Sendable, Equatable {
        case opened(limit: Int)
        case incremented(by: Int)
    }

    enum Command: Sendable {
        case open(limit: Int)
        case increment(by: Int)
    }

    enum Rejection: Error, Equatable {
        case notOpen, alreadyOpen, overLimit
    }

    static let initialState = State()
    static let eventTypes = EventTypeMap<Event>()
        .registering(Opened.self) { .opened(limit: $0.limit) }
        .registering(Incremented.self) { .incremented(by: $0.by) }

    static func apply(_ state: State, _ event: Event) -> State {
        var state = state
        switch event {
        case .opened(let limit): state.opened = true; state.limit = limit
        case .incremented(let by): state.value += by
        }
        return state
    }

    static func decide(_ command: Command, _ state: State) throws -> [Event] {
        switch command {
        case .open(let limit):
            guard !state.opened else { throw Rejection.alreadyOpen }
            return [.opened(limit: limit)]
        case .increment(let by):
            guard state.opened else { throw Rejection.notOpen }
            guard state.value + by <= state.limit else { throw Rejection.overLimit }
            return by == 0 ? [] : [.incremented(by: by)]
        }
    }

    static func payload(of event: Event) -> any EventPayload {
        switch event {
        case .opened(let limit): Opened(limit: limit)
        case .incremented(let by): Incremented(by: by)
        }
    }
}
