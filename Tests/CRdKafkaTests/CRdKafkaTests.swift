import CRdKafka
import Testing

@Suite("CRdKafka: the system librdkafka and its mock cluster are reachable from Swift")
struct CRdKafkaTests {
    @Test("librdkafka reports its version and the mock cluster serves a loopback bootstrap address")
    func mockClusterStarts() throws {
        let version = String(cString: rd_kafka_version_str())
        #expect(version.hasPrefix("2."))

        let configuration = rd_kafka_conf_new()
        var error = [CChar](repeating: 0, count: 512)
        let handle = rd_kafka_new(RD_KAFKA_PRODUCER, configuration, &error, error.count)
        let producer = try #require(handle, "rd_kafka_new failed: \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        defer { rd_kafka_destroy(producer) }

        let cluster = try #require(rd_kafka_mock_cluster_new(producer, 1))
        defer { rd_kafka_mock_cluster_destroy(cluster) }
        let bootstraps = String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
        #expect(bootstraps.hasPrefix("127.0.0.1:") || bootstraps.hasPrefix("localhost:"))
    }
}
