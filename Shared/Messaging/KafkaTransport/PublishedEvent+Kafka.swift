import EventSourcing
import Foundation
import Kafka

/// How a ``PublishedEvent`` maps onto a Kafka message: key = stream id (order per aggregate), value = the JSON payload
/// as stored, envelope fields in headers.
enum KafkaEventHeaders {
    static let eventID = "event-id"
    static let eventType = "event-type"
    static let schemaVersion = "schema-version"
    static let traceparent = "traceparent"
    static let source = "waypoint-source"
    static let streamVersion = "waypoint-stream-version"
    static let position = "waypoint-position"
    static let recordedAt = "waypoint-recorded-at-us"
    static let correlationID = "waypoint-correlation-id"
    static let causationID = "waypoint-causation-id"
    static let actorID = "waypoint-actor-id"
}

extension PublishedEvent {
    /// The Kafka message for this event on `topic`.
    public func kafkaMessage(topic: String) -> KafkaOutgoingMessage {
        var headers: [(String, String)] = [
            (KafkaEventHeaders.eventID, eventID.uuidString),
            (KafkaEventHeaders.eventType, eventType),
            (KafkaEventHeaders.schemaVersion, String(schemaVersion)),
            (KafkaEventHeaders.source, source),
            (KafkaEventHeaders.streamVersion, String(streamVersion)),
            (KafkaEventHeaders.position, String(position)),
            (KafkaEventHeaders.recordedAt, String(recordedAt.microsecondsSince1970)),
        ]
        if let traceparent = metadata.traceparent { headers.append((KafkaEventHeaders.traceparent, traceparent)) }
        if let id = metadata.correlationID { headers.append((KafkaEventHeaders.correlationID, id.uuidString)) }
        if let id = metadata.causationID { headers.append((KafkaEventHeaders.causationID, id.uuidString)) }
        if let actor = metadata.actorID { headers.append((KafkaEventHeaders.actorID, actor)) }
        return KafkaOutgoingMessage(
            topic: topic, key: streamID, value: payload,
            headers: headers.map { KafkaHeader(key: $0.0, value: Data($0.1.utf8)) })
    }

    /// Reads an event from a Kafka message; `nil` when it is not a Waypoint event (tolerant of foreign messages).
    public init?(kafkaMessage message: KafkaIncomingMessage) {
        var headers: [String: String] = [:]
        for header in message.headers { headers[header.key] = String(decoding: header.value, as: UTF8.self) }
        guard let key = message.key,
              let id = headers[KafkaEventHeaders.eventID].flatMap(UUID.init(uuidString:)),
              let type = headers[KafkaEventHeaders.eventType],
              let schemaVersion = headers[KafkaEventHeaders.schemaVersion].flatMap(Int.init),
              let source = headers[KafkaEventHeaders.source],
              let streamVersion = headers[KafkaEventHeaders.streamVersion].flatMap(Int64.init),
              let position = headers[KafkaEventHeaders.position].flatMap(Int64.init),
              let recordedAt = headers[KafkaEventHeaders.recordedAt].flatMap(Int64.init)
        else { return nil }
        let metadata = EventMetadata(
            correlationID: headers[KafkaEventHeaders.correlationID].flatMap(UUID.init(uuidString:)),
            causationID: headers[KafkaEventHeaders.causationID].flatMap(UUID.init(uuidString:)),
            actorID: headers[KafkaEventHeaders.actorID], traceparent: headers[KafkaEventHeaders.traceparent])
        self.init(EventEnvelope(eventID: id, streamID: key, streamVersion: streamVersion, position: position, eventType: type,
                                schemaVersion: schemaVersion, payload: Data(message.value), metadata: metadata,
                                recordedAt: Date(microsecondsSince1970: recordedAt)),
                  source: source)
    }
}
