import Foundation

/// A consistency boundary written as two pure functions: `decide` turns a command into events, `apply` folds events
/// into state. The repository does load → decide → append.
public protocol Aggregate: Sendable {
    /// The folded state; `Codable` so it can be snapshotted.
    associatedtype State: Codable & Sendable
    /// The aggregate's events (usually an enum wrapping ``EventPayload`` structs).
    associatedtype Event: Sendable
    /// What callers ask for.
    associatedtype Command: Sendable

    /// State before any event.
    static var initialState: State { get }
    /// How stored events decode into `Event`.
    static var eventTypes: EventTypeMap<Event> { get }
    /// Version of `State`'s encoding, for snapshots; bump it when `State` changes incompatibly.
    static var stateVersion: Int { get }

    /// Folds one event into the state.
    static func apply(_ state: State, _ event: Event) -> State
    /// Decides which events a command causes; throws a domain error to reject it.
    static func decide(_ command: Command, _ state: State) throws -> [Event]
    /// The stored payload of an event (its type name and schema version come from the payload type).
    static func payload(of event: Event) -> any EventPayload
    /// The id a new event must be stored with, when the domain fixes it (an idempotency key names the event, so a
    /// repeated request finds it); `nil` (the default) for a fresh UUIDv7.
    static func eventID(of event: Event) -> UUID?
}

extension Aggregate {
    public static var stateVersion: Int { 1 }

    public static func eventID(of event: Event) -> UUID? { nil }
}
