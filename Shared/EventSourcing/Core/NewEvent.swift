import Foundation
import Contracts

/// An event about to be appended: everything but the positions the store assigns.
public struct NewEvent: Sendable, Hashable {
    /// Unique id; retrying an append with the same ids is idempotent.
    public var eventID: UUID
    /// The event's type name, e.g. `TourPublished`.
    public var eventType: String
    /// Version of the payload's schema for this type; bumped only for breaking changes (see upcasters).
    public var schemaVersion: Int
    /// The payload as UTF-8 JSON bytes, stored verbatim.
    public var payload: Data
    /// Correlation, causation, actor and trace context.
    public var metadata: EventMetadata

    /// Creates an event from an already encoded JSON payload.
    public init(eventID: UUID = .v7(), eventType: String, schemaVersion: Int = 1, payload: Data, metadata: EventMetadata = .init()) {
        self.eventID = eventID
        self.eventType = eventType
        self.schemaVersion = schemaVersion
        self.payload = payload
        self.metadata = metadata
    }

    /// Creates an event by encoding `value` with the store's canonical JSON encoder.
    public init<Payload: Encodable>(
        eventID: UUID = .v7(), eventType: String, schemaVersion: Int = 1, encoding value: Payload, metadata: EventMetadata = .init()
    ) throws {
        self.init(eventID: eventID, eventType: eventType, schemaVersion: schemaVersion, payload: try EventJSON.encode(value), metadata: metadata)
    }
}
