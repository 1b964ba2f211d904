/// How a Kafka client reaches the cluster: the settings every ``KafkaProducer`` and ``KafkaConsumer`` share.
///
/// Each client layers librdkafka properties in three steps, later steps winning:
/// 1. the client's documented defaults (see ``KafkaProducer`` and ``KafkaConsumer``),
/// 2. ``bootstrapServers``, ``clientID`` and then every entry of ``properties``,
/// 3. the invariants the client guarantees (idempotence for the producer, manual offset store for the consumer),
///    which ``properties`` cannot switch off.
///
/// librdkafka's own log lines go to the client's swift-log `Logger`; its `log_level` follows that logger's level
/// unless ``properties`` sets it (set `debug`, such as `"cgrp,topic"`, together with a `.debug` logger to trace).
public struct KafkaConfiguration: Sendable, Hashable {
    /// Comma-separated `host:port` list of brokers to bootstrap from (librdkafka `bootstrap.servers`).
    /// Default: `"localhost:9092"`.
    public var bootstrapServers: String

    /// Name of this client in broker logs and metrics (librdkafka `client.id`). Default: `"waypoint"`.
    public var clientID: String

    /// Extra librdkafka properties, for example `["message.timeout.ms": "30000"]`
    /// (see librdkafka's CONFIGURATION.md). Default: none.
    public var properties: [String: String]

    /// Creates a configuration.
    /// - Parameters:
    ///   - bootstrapServers: Comma-separated `host:port` list of brokers. Default `"localhost:9092"`.
    ///   - clientID: The librdkafka `client.id`. Default `"waypoint"`.
    ///   - properties: Extra librdkafka properties. Default none.
    public init(
        bootstrapServers: String = "localhost:9092",
        clientID: String = "waypoint",
        properties: [String: String] = [:]
    ) {
        self.bootstrapServers = bootstrapServers
        self.clientID = clientID
        self.properties = properties
    }

    /// The librdkafka properties for a client: `defaults`, then this configuration, then `invariants`.
    func librdkafkaProperties(defaults: [String: String], invariants: [String: String]) -> [String: String] {
        var merged = defaults
        merged["bootstrap.servers"] = bootstrapServers
        merged["client.id"] = clientID
        merged.merge(properties) { _, user in user }
        merged.merge(invariants) { _, invariant in invariant }
        return merged
    }
}
