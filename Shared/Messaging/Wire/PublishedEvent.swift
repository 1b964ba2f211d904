import EventSourcing
import Foundation

/// An event as it travels from its producing service to consumers (a Kafka message or an embedded feed item).
///
/// It is the producer's stored envelope plus the producing service's name; consumers dedupe by
/// (source, stream id, stream version) and decode `payload` with the event's type from `Contracts`.
public struct PublishedEvent: Codable, Sendable, Hashable {
    /// The producing service, e.g. `auth`.
    public var source: String
    /// Unique id of the event.
    public var eventID: UUID
    /// The producer's stream (aggregate instance); also the Kafka key, so each stream stays in order.
    public var streamID: String
    /// The stream's version after this event.
    public var streamVersion: Int64
    /// Position in the producer's log.
    public var position: Int64
    /// The event type name.
    public var eventType: String
    /// The payload's schema version.
    public var schemaVersion: Int
    /// UTF-8 JSON payload (base64 inside the embedded feed's JSON; the raw message value on Kafka).
    public var payload: Data
    /// Correlation, causation, actor and trace context.
    public var metadata: EventMetadata
    /// When the producer committed the event.
    public var recordedAt: Date

    /// The published form of a stored event of `source`.
    public init(_ envelope: EventEnvelope, source: String) {
        self.source = source
        self.eventID = envelope.eventID
        self.streamID = envelope.streamID
        self.streamVersion = envelope.streamVersion
        self.position = envelope.position
        self.eventType = envelope.eventType
        self.schemaVersion = envelope.schemaVersion
        self.payload = envelope.payload
        self.metadata = envelope.metadata
        self.recordedAt = envelope.recordedAt
    }

    /// Decodes the payload.
    public func decode<Payload: Decodable>(_ type: Payload.Type = Payload.self) throws -> Payload {
        try EventJSON.decode(type, from: payload)
    }

    /// The event as an envelope (position is the producer's), so `EventTypeMap` and upcasters apply to it too.
    public var envelope: EventEnvelope {
        EventEnvelope(eventID: eventID, streamID: streamID, streamVersion: streamVersion, position: position, eventType: eventType,
                      schemaVersion: schemaVersion, payload: payload, metadata: metadata, recordedAt: recordedAt)
    }
}
