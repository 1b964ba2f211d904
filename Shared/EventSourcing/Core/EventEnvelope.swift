import Foundation

/// A stored event with its positions: the unit every reader of the log receives.
public struct EventEnvelope: Sendable, Hashable {
    /// Unique id of the event.
    public var eventID: UUID
    /// The stream (aggregate instance) the event belongs to, e.g. `tour-<uuid>`.
    public var streamID: String
    /// 1-based version of the stream after this event.
    public var streamVersion: Int64
    /// 1-based global position: gapless and in commit order across all streams of the store.
    public var position: Int64
    /// The event's type name.
    public var eventType: String
    /// The payload's schema version (after upcasting, when read through upcasters).
    public var schemaVersion: Int
    /// UTF-8 JSON payload.
    public var payload: Data
    /// Correlation, causation, actor and trace context.
    public var metadata: EventMetadata
    /// When the store committed the event, at microsecond precision.
    public var recordedAt: Date

    /// Creates an envelope; stores use this when reading rows.
    public init(
        eventID: UUID, streamID: String, streamVersion: Int64, position: Int64, eventType: String,
        schemaVersion: Int, payload: Data, metadata: EventMetadata, recordedAt: Date
    ) {
        self.eventID = eventID
        self.streamID = streamID
        self.streamVersion = streamVersion
        self.position = position
        self.eventType = eventType
        self.schemaVersion = schemaVersion
        self.payload = payload
        self.metadata = metadata
        self.recordedAt = recordedAt
    }

    /// Decodes the payload with the canonical JSON decoder.
    public func decode<Payload: Decodable>(_ type: Payload.Type = Payload.self) throws -> Payload {
        try EventJSON.decode(type, from: payload)
    }
}
