#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One Kafka record header: a name and opaque bytes. Waypoint uses them for the event id, type, schema version
/// and `traceparent`.
public struct KafkaHeader: Sendable, Hashable {
    /// The header name.
    public var key: String

    /// The header value as raw bytes (UTF-8 text for every header Waypoint writes).
    public var value: Data

    /// Creates a header.
    public init(key: String, value: Data) {
        self.key = key
        self.value = value
    }

    /// Creates a header whose value is the UTF-8 encoding of `value`.
    public init(key: String, value: String) {
        self.init(key: key, value: Data(value.utf8))
    }
}
