import CRdKafka
import Logging

/// The consumer's rebalance callback: applies each assignment the group hands out and, before giving partitions up,
/// commits the offsets stored so far so that the next owner resumes right after the last processed message.
/// librdkafka calls it from inside `rd_kafka_consumer_poll` / `rd_kafka_consumer_close`, on the consumer's own queue.
enum RDKafkaRebalance {
    static func install(on configuration: OpaquePointer) {
        rd_kafka_conf_set_rebalance_cb(configuration) { handle, code, partitions, opaque in
            guard let handle, let context = RDKafkaClientContext.from(opaque: opaque) else { return }
            RDKafkaRebalance.rebalance(handle, code: code, partitions: partitions, logger: context.logger)
        }
    }

    private static func rebalance(
        _ handle: OpaquePointer, code: rd_kafka_resp_err_t,
        partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?, logger: Logger
    ) {
        let cooperative = rd_kafka_rebalance_protocol(handle).map { String(cString: $0) } == "COOPERATIVE"
        let described = partitions.map { RDKafkaTopicPartitionList.partitions(in: $0).map(\.description) } ?? []
        let metadata: Logger.Metadata = [
            "kafka.client": "\(String(cString: rd_kafka_name(handle)))", "kafka.partitions": "\(described)"]
        switch code {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            logger.info("partitions assigned", metadata: metadata)
            let result = cooperative ? errorCode(rd_kafka_incremental_assign(handle, partitions))
                                     : rd_kafka_assign(handle, partitions)
            report(result, "assign partitions", logger: logger)
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            logger.info("partitions revoked", metadata: metadata)
            if rd_kafka_assignment_lost(handle) == 0 {
                commitStoredOffsets(handle, operation: "commit offsets on revoke", logger: logger)
            }
            let result = cooperative ? errorCode(rd_kafka_incremental_unassign(handle, partitions))
                                     : rd_kafka_assign(handle, nil)
            report(result, "revoke partitions", logger: logger)
        default:
            logger.warning("rebalance failed", metadata: metadata.merging(
                ["kafka.error": "\(String(cString: rd_kafka_err2name(code)))"]) { $1 })
            report(rd_kafka_assign(handle, nil), "clear assignment", logger: logger)
        }
    }

    /// Synchronously commits every stored offset; "nothing to commit" is success.
    @discardableResult
    static func commitStoredOffsets(_ handle: OpaquePointer, operation: String, logger: Logger) -> KafkaError? {
        let code = rd_kafka_commit(handle, nil, 0)
        guard code != RD_KAFKA_RESP_ERR_NO_ERROR, code != RD_KAFKA_RESP_ERR__NO_OFFSET else { return nil }
        let error = KafkaError(code: code, operation: operation)
        logger.warning("\(error)")
        return error
    }

    private static func errorCode(_ error: OpaquePointer?) -> rd_kafka_resp_err_t {
        guard let error else { return RD_KAFKA_RESP_ERR_NO_ERROR }
        defer { rd_kafka_error_destroy(error) }
        return rd_kafka_error_code(error)
    }

    private static func report(_ code: rd_kafka_resp_err_t, _ operation: String, logger: Logger) {
        guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return }
        logger.error("\(KafkaError(code: code, operation: operation))")
    }
}
