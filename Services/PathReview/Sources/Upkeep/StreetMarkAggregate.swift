import Contracts
import EventSourcing
import Foundation

extension StreetCompatibilityChanged: EventPayload {}

/// A street's moderator mark folded from `street-<streetId>`: whether it is marked incompatible with bicycles now.
public struct StreetMarkState: Codable, Sendable, Hashable {
    public var streetId: Int64?
    /// `true` while a moderator's "incompatible" mark holds.
    public var incompatible = false
    public var changedAt: Date?

    public init() {}
}

/// A street mark's events: only the published change (nothing personal in it).
public enum StreetMarkEvent: Sendable, Hashable {
    case changed(StreetCompatibilityChanged)
}

/// What a moderator asks of a street. The route resolves the street in the catalog first (an unknown street is its
/// 404) and passes the street's OSM node sequences, which the published event carries.
public enum StreetMarkCommand: Sendable {
    case markIncompatible(streetId: Int64, osmNodes: [[Int64]], at: Date)
    case liftMark(streetId: Int64, osmNodes: [[Int64]], at: Date)
}

/// One stream per marked street (issue 20, point 6). Marking a marked street, or lifting a mark that is not there,
/// changes nothing (no event): both commands are idempotent, so a client may retry them without `If-Match`.
public enum StreetMarkAggregate: Aggregate {
    public typealias State = StreetMarkState
    public typealias Event = StreetMarkEvent
    public typealias Command = StreetMarkCommand

    public static var initialState: StreetMarkState { StreetMarkState() }

    public static let eventTypes = EventTypeMap<StreetMarkEvent>()
        .registering(StreetCompatibilityChanged.self, StreetMarkEvent.changed)

    /// The stream of street `id`.
    public static func streamID(_ id: Int64) -> String { "street-\(id)" }

    public static func payload(of event: StreetMarkEvent) -> any EventPayload {
        switch event {
        case .changed(let e): e
        }
    }

    public static func apply(_ state: StreetMarkState, _ event: StreetMarkEvent) -> StreetMarkState {
        var s = state
        switch event {
        case .changed(let e): (s.streetId, s.incompatible, s.changedAt) = (e.streetId, !e.compatible, e.changedAt)
        }
        return s
    }

    public static func decide(_ command: StreetMarkCommand, _ s: StreetMarkState) throws -> [StreetMarkEvent] {
        switch command {
        case let .markIncompatible(streetId, osmNodes, at):
            guard !s.incompatible else { return [] }
            return [.changed(StreetCompatibilityChanged(streetId: streetId, osmNodes: osmNodes, compatible: false, changedAt: at))]
        case let .liftMark(streetId, osmNodes, at):
            guard s.incompatible else { return [] }
            return [.changed(StreetCompatibilityChanged(streetId: streetId, osmNodes: osmNodes, compatible: true, changedAt: at))]
        }
    }
}
