/// The `rd_kafka_mock_cluster_t`, held under the cluster's lock.
struct MockClusterPointer: @unchecked Sendable {  // librdkafka's mock API is thread-safe; the Mutex guards destroy.
    let pointer: OpaquePointer
}
