import CRdKafka
import Logging
import Synchronization

/// librdkafka's in-process mock Kafka cluster: real Kafka protocol over TCP on loopback, for tests, benchmarks and the
/// launcher's Kafka mode. Other clients — in this process or others — connect through ``bootstrapServers``.
///
/// Supports producing (including the idempotent producer), consumer groups with offset commits, and topic
/// auto-creation (4 partitions). Data lives in memory until ``shutdown()``; listener ports are chosen by the OS.
public final class KafkaMockCluster: Sendable {
    /// The `host:port` list to use as ``KafkaConfiguration/bootstrapServers``.
    public let bootstrapServers: String

    /// How many brokers the cluster runs; their ids are `1...brokerCount`.
    public let brokerCount: Int

    private let handle: RDKafkaHandle
    private let cluster: Mutex<MockClusterPointer?>

    /// Starts a cluster of `brokers` brokers (ids 1 through `brokers`), owned by a dedicated producer handle.
    /// - Parameter logger: Receives the mock brokers' librdkafka logs. Default: label `waypoint.kafka.mock`, at `.warning`.
    /// - Throws: ``KafkaError`` when librdkafka cannot start the cluster.
    public init(brokers: Int = 1, logger: Logger = KafkaMockCluster.defaultLogger) throws {
        precondition(brokers > 0, "a mock cluster needs at least one broker")
        // The mock brokers' sockets take this handle's settings. With Nagle's algorithm on, a broker answering several
        // pipelined requests (librdkafka sends one ProduceRequest per partition) holds back every response after the
        // first until the client's delayed ACK, 40 ms later; real brokers set TCP_NODELAY.
        handle = try RDKafkaHandle.make(
            type: RD_KAFKA_PRODUCER, properties: ["client.id": "waypoint-mock-cluster", "socket.nagle.disable": "true"],
            context: RDKafkaClientContext(logger: logger))
        guard let pointer = rd_kafka_mock_cluster_new(handle.pointer, Int32(brokers)) else {
            handle.destroy()
            throw KafkaError(code: RD_KAFKA_RESP_ERR__FAIL, operation: "start mock cluster")
        }
        bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(pointer))
        brokerCount = brokers
        cluster = Mutex(MockClusterPointer(pointer: pointer))
    }

    deinit {
        shutdown()
    }

    /// librdkafka properties for clients of a mock cluster: `fetch.wait.max.ms=5`. A mock broker answers an empty
    /// fetch only after the full wait (a real broker answers as soon as data arrives), so with librdkafka's 500 ms a
    /// consumer would see new messages up to half a second late.
    public static let clientProperties = ["fetch.wait.max.ms": "5"]

    /// A logger for the mock brokers that shows only warnings and errors.
    public static var defaultLogger: Logger {
        var logger = Logger(label: "waypoint.kafka.mock")
        logger.logLevel = .warning
        return logger
    }

    /// Creates `name` with `partitions` partitions, replicated to every broker (at most 3).
    /// Topics that clients use before this are auto-created with 4 partitions.
    /// - Throws: ``KafkaError`` when the cluster refuses, or after ``shutdown()``.
    public func createTopic(_ name: String, partitions: Int = 4) throws {
        try call("create topic \(name)") {
            rd_kafka_mock_topic_create($0, name, Int32(partitions), Int32(min(brokerCount, 3)))
        }
    }

    /// Disconnects broker `id` and refuses new connections to it, as if it had crashed; partition leadership stays.
    /// - Throws: ``KafkaError`` for an unknown broker, or after ``shutdown()``.
    public func setBrokerDown(_ id: Int32) throws {
        try call("set broker \(id) down") { rd_kafka_mock_broker_set_down($0, id) }
    }

    /// Lets broker `id` accept connections again after ``setBrokerDown(_:)``.
    /// - Throws: ``KafkaError`` for an unknown broker, or after ``shutdown()``.
    public func setBrokerUp(_ id: Int32) throws {
        try call("set broker \(id) up") { rd_kafka_mock_broker_set_up($0, id) }
    }

    /// Stops the brokers (closing every client connection and dropping all data) and destroys the owning handle.
    /// Idempotent.
    public func shutdown() {
        guard let cluster = cluster.withLock({ $0.take() }) else { return }
        rd_kafka_mock_cluster_destroy(cluster.pointer)
        handle.destroy()
    }

    private func call(_ operation: String, _ body: (OpaquePointer) -> rd_kafka_resp_err_t) throws {
        try cluster.withLock { cluster in
            guard let cluster else { throw KafkaError.clientClosed(operation) }
            let code = body(cluster.pointer)
            guard code == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(code: code, operation: operation) }
        }
    }
}
