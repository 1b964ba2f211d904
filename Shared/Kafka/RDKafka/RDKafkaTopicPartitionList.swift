import CRdKafka

/// Builds and reads librdkafka's `rd_kafka_topic_partition_list_t`.
enum RDKafkaTopicPartitionList {
    typealias List = UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    /// Calls `body` with a temporary list of `entries` (partition `RD_KAFKA_PARTITION_UA` subscribes to a whole topic).
    static func with<T>(
        _ entries: [(topic: String, partition: Int32, offset: Int64)], _ body: (List) throws -> T
    ) rethrows -> T {
        let list: List = rd_kafka_topic_partition_list_new(Int32(clamping: entries.count))
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for entry in entries {
            rd_kafka_topic_partition_list_add(list, entry.topic, entry.partition).pointee.offset = entry.offset
        }
        return try body(list)
    }

    /// The topic partitions in `list`.
    static func partitions(in list: UnsafePointer<rd_kafka_topic_partition_list_t>) -> [KafkaTopicPartition] {
        (0..<Int(list.pointee.cnt)).map { index in
            let element = list.pointee.elems[index]
            return KafkaTopicPartition(topic: String(cString: element.topic), partition: element.partition)
        }
    }

    /// The first per-partition error in `list`, if any.
    static func firstError(in list: UnsafePointer<rd_kafka_topic_partition_list_t>) -> rd_kafka_resp_err_t? {
        (0..<Int(list.pointee.cnt)).lazy.map { list.pointee.elems[$0].err }.first { $0 != RD_KAFKA_RESP_ERR_NO_ERROR }
    }
}
