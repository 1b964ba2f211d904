#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A record to publish with ``KafkaProducer/send(_:)``.
///
/// The partition is chosen by the producer's `murmur2_random` partitioner from ``key``, so every record with the same
/// key (a stream id) lands on the same partition, in the order it was sent.
public struct KafkaOutgoingMessage: Sendable, Hashable {
    /// The topic to publish to, for example `"waypoint.tours"`.
    public var topic: String

    /// The record key; Waypoint uses the stream id so that each aggregate's events stay in order.
    public var key: String

    /// The record value (Waypoint: the event's JSON payload).
    public var value: Data

    /// The record headers, in order.
    public var headers: [KafkaHeader]

    /// Creates a message.
    public init(topic: String, key: String, value: Data, headers: [KafkaHeader] = []) {
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
    }
}
