import Foundation

/// Who and what caused an event: carried with every event for tracing and auditing.
public struct EventMetadata: Sendable, Hashable, Codable {
    /// The id shared by every event caused by one original request.
    public var correlationID: UUID?
    /// The id of the event or command that directly caused this one.
    public var causationID: UUID?
    /// The user or system actor that issued the command (a user id, or e.g. `system:scheduler`).
    public var actorID: String?
    /// The W3C `traceparent` header value of the request that caused this event.
    public var traceparent: String?

    /// Creates metadata; every field is optional.
    public init(correlationID: UUID? = nil, causationID: UUID? = nil, actorID: String? = nil, traceparent: String? = nil) {
        self.correlationID = correlationID
        self.causationID = causationID
        self.actorID = actorID
        self.traceparent = traceparent
    }

    /// The same metadata with empty strings treated as absent (both stores store them as NULL).
    var normalized: EventMetadata {
        EventMetadata(
            correlationID: correlationID, causationID: causationID,
            actorID: actorID?.isEmpty == true ? nil : actorID,
            traceparent: traceparent?.isEmpty == true ? nil : traceparent)
    }
}
