import Foundation
import Contracts

/// A payload type that is stored as one event type at one schema version.
public protocol EventPayload: Codable, Sendable {
    /// The stored event type name.
    static var eventType: String { get }
    /// The payload's current schema version (older versions reach it through upcasters).
    static var schemaVersion: Int { get }
}

extension EventPayload {
    public static var schemaVersion: Int { 1 }

    /// This payload as a new event ready to append.
    public func newEvent(id: UUID = .v7(), metadata: EventMetadata = .init()) throws -> NewEvent {
        try NewEvent(eventID: id, eventType: Self.eventType, schemaVersion: Self.schemaVersion, encoding: self, metadata: metadata)
    }
}

/// Decodes stored events into a service's event enum by type name: the one tolerant reader of every service.
///
/// Unknown types decode to `nil` (ignored); a known type whose payload does not decode, or whose schema version is not
/// the one registered, throws — readers must stop rather than skip it.
public struct EventTypeMap<Event: Sendable>: Sendable {
    private var decoders: [String: @Sendable (EventEnvelope) throws -> Event] = [:]
    /// The event types this map decodes (what a projection of exactly these events names as its
    /// ``ProjectionSchema/eventTypes``); kept beside the decoders so reading it copies no keys.
    public private(set) var eventTypes: Set<String> = []

    /// An empty map.
    public init() {}

    /// Registers a payload type and how it becomes an `Event`.
    public mutating func register<Payload: EventPayload>(_ type: Payload.Type, _ wrap: @escaping @Sendable (Payload) -> Event) {
        register(type, identified: { payload, _ in wrap(payload) })
    }

    /// Registers a payload type whose stored event id means something to the domain (an idempotency key chose it, see
    /// ``Aggregate/eventID(of:)``): `wrap` gets the payload and that id.
    public mutating func register<Payload: EventPayload>(_ type: Payload.Type,
                                                         identified wrap: @escaping @Sendable (Payload, UUID) -> Event) {
        eventTypes.insert(Payload.eventType)
        decoders[Payload.eventType] = { envelope in
            guard envelope.schemaVersion == Payload.schemaVersion else {
                throw EventDecodingError.unsupportedSchemaVersion(
                    eventType: envelope.eventType, found: envelope.schemaVersion, expected: Payload.schemaVersion)
            }
            do {
                return wrap(try envelope.decode(Payload.self), envelope.eventID)
            } catch {
                throw EventDecodingError.undecodablePayload(eventType: envelope.eventType, position: envelope.position, reason: "\(error)")
            }
        }
    }

    /// Returns a copy with a payload type registered.
    public func registering<Payload: EventPayload>(_ type: Payload.Type, _ wrap: @escaping @Sendable (Payload) -> Event) -> Self {
        var copy = self
        copy.register(type, wrap)
        return copy
    }

    /// Returns a copy with a payload type registered whose event id `wrap` keeps (see ``register(_:identified:)``).
    public func registering<Payload: EventPayload>(_ type: Payload.Type,
                                                   identified wrap: @escaping @Sendable (Payload, UUID) -> Event) -> Self {
        var copy = self
        copy.register(type, identified: wrap)
        return copy
    }

    /// The decoded event, or `nil` for a type this map does not know.
    public func decode(_ envelope: EventEnvelope) throws -> Event? {
        try decoders[envelope.eventType]?(envelope)
    }
}

/// A stored event of a known type that cannot be read.
public enum EventDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload does not match the registered type.
    case undecodablePayload(eventType: String, position: Int64, reason: String)
    /// The stored schema version has no upcaster to the registered one.
    case unsupportedSchemaVersion(eventType: String, found: Int, expected: Int)

    public var description: String {
        switch self {
        case let .undecodablePayload(type, position, reason): "undecodable \(type) payload at position \(position): \(reason)"
        case let .unsupportedSchemaVersion(type, found, expected): "\(type) schema version \(found), expected \(expected)"
        }
    }
}
