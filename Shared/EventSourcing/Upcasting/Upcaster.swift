import Foundation

/// Maps a stored payload of one (event type, schema version) to the next schema version, on read.
///
/// Stored events are never rewritten: a breaking payload change ships a new schema version plus an upcaster,
/// and every reader sees the newest shape.
public struct Upcaster: Sendable {
    /// The event type this upcaster reads.
    public var eventType: String
    /// The schema version it reads; it produces `fromVersion + 1`.
    public var fromVersion: Int
    /// The type name to produce (usually the same; lets a type be renamed).
    public var toEventType: String
    let transform: @Sendable (Data) throws -> Data

    /// Creates an upcaster over raw JSON bytes.
    public init(eventType: String, fromVersion: Int, toEventType: String? = nil, transform: @escaping @Sendable (Data) throws -> Data) {
        self.eventType = eventType
        self.fromVersion = fromVersion
        self.toEventType = toEventType ?? eventType
        self.transform = transform
    }

    /// Creates an upcaster that edits the payload as a JSON object.
    public static func object(
        eventType: String, fromVersion: Int, toEventType: String? = nil,
        _ edit: @escaping @Sendable (inout [String: Any]) throws -> Void
    ) -> Upcaster {
        Upcaster(eventType: eventType, fromVersion: fromVersion, toEventType: toEventType) { data in
            guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw UpcastingError.notAnObject(eventType: eventType, schemaVersion: fromVersion)
            }
            try edit(&object)
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
    }
}

/// Why an upcaster could not map a payload.
public enum UpcastingError: Error, Sendable, Hashable {
    /// The payload was not a JSON object.
    case notAnObject(eventType: String, schemaVersion: Int)
}
