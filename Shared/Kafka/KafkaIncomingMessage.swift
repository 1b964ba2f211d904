#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A record received by ``KafkaConsumer/poll(maxMessages:timeout:)``.
public struct KafkaIncomingMessage: Sendable, Hashable {
    /// The topic the record was read from.
    public var topic: String

    /// The partition the record was read from.
    public var partition: Int32

    /// The record's offset within its partition.
    public var offset: Int64

    /// The record key decoded as UTF-8, or `nil` when the record has no key.
    public var key: String?

    /// The record value; empty for a record with a null value.
    public var value: Data

    /// The record headers, in the order the producer wrote them.
    public var headers: [KafkaHeader]

    /// The record's timestamp (producer create time or broker append time, per the topic's configuration),
    /// or `nil` when the broker did not report one.
    public var timestamp: Date?

    /// Creates a message; the consumer does this, tests may too.
    public init(
        topic: String, partition: Int32, offset: Int64, key: String?, value: Data,
        headers: [KafkaHeader] = [], timestamp: Date? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }

    /// The first header named `key`, if any.
    public func header(_ key: String) -> Data? {
        headers.first { $0.key == key }?.value
    }
}
