import Contracts
import EventSourcing
import Foundation
import Kafka
import Logging
import Messaging
import ServiceKit

/// One topic's live consumer: the kernel's ``ConsumerRunner`` over a lag-reporting source and the analytics target of
/// the backend (``SQLiteAnalyticsTarget`` / ``PostgresAnalyticsTarget``: dedupe records and source position in the
/// same transaction as the analytics rows).
public struct AnalyticsConsumer: Sendable {
    public let topic: Topic
    public let runner: any ConsumerService
    public let lag: TopicLag

    /// `consumer.<name>`: the runner's status (starting, stopped on a poison event) and the lag rule of ``TopicLag``.
    public func register(with readiness: Readiness) {
        let runner = runner, lag = lag
        readiness.register("consumer.\(runner.name)") { lag.check(runner.status) }
    }
}

/// Builds the consumers of the topics analytics reads, on the configured transport and backend.
public enum AnalyticsConsumers {
    /// The live consumers: one per configured topic that can be reached. On Kafka every topic is subscribed (a topic
    /// without a producer yet simply has no messages); on the embedded transport a topic whose producer has no URL
    /// (`WAYPOINT_PATH_REVIEW_URL`, …) is skipped with a notice, so a missing producer never fails start-up.
    public static func live(_ configuration: AnalyticsConfiguration, storage: ServiceStorage, generation: Int,
                            metrics: ServiceMetrics, logger: Logger) throws -> [AnalyticsConsumer] {
        let tables = ProjectionTables(generation: generation, isRebuild: false)
        var consumers: [AnalyticsConsumer] = []
        for topic in configuration.topics {
            guard storage.settings.kafkaBrokers != nil || configuration.producerURL(topic) != nil else {
                logger.notice("not consuming \(topic.name): no producer URL configured",
                              metadata: ["key": "WAYPOINT_\(ServiceEndpoints.keySuffix(for: topic.producingService ?? ""))"])
                continue
            }
            let group = groupID(storage.settings.serviceName, topic)
            let lag = TopicLag(topic: topic.name, group: group, maxLag: configuration.maxLagEvents, metrics: metrics)
            var topicLogger = logger
            topicLogger[metadataKey: "consumer.topic"] = "\(topic.name)"
            guard let source = try source(topic, configuration: configuration, storage: storage, lag: lag,
                                          groupID: group, logger: topicLogger) else { continue }
            let runner = runner(source, storage: storage, name: AnalyticsConsumerName.live(topic), tables: tables,
                                configuration: configuration, logger: topicLogger)
            consumers.append(AnalyticsConsumer(topic: topic, runner: runner, lag: lag))
        }
        return consumers
    }

    /// The Kafka consumer group of the consumer of `topic`: one group per topic (`analytics.waypoint.tours`). Consumers
    /// of several topics sharing one group, each subscribed to its own topic, rebalance one another at every join and
    /// leave (on librdkafka's mock cluster a start took ~40 s and a stop outran the drain).
    static func groupID(_ base: String, _ topic: Topic) -> String { "\(base).\(topic.name)" }

    /// The source of `topic`: a member of consumer group `groupID` on Kafka, the producer's feed otherwise (`nil`
    /// without a producer URL).
    static func source(_ topic: Topic, configuration: AnalyticsConfiguration, storage: ServiceStorage, lag: TopicLag, groupID: String,
                       logger: Logger) throws -> (any LagReportingSource)? {
        guard let producer = topic.producingService else { return nil }
        if let brokers = storage.settings.kafkaBrokers {
            let consumer = try KafkaConsumer(
                configuration: KafkaConfiguration(bootstrapServers: brokers, clientID: storage.settings.serviceName,
                                                  properties: storage.settings.kafkaProperties),
                groupID: groupID, topics: [topic.name], logger: logger)
            return AnalyticsKafkaSource(consumer: consumer, lag: lag, logger: logger)
        }
        guard let url = configuration.producerURL(topic) else { return nil }
        if configuration.service.internalToken == nil {
            logger.warning("no internal token configured: \(producer)'s feed will refuse analytics (401) until one is set")
        }
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        // Only the types analytics reads (`AnalyticsEvents.readers`): the producer then reads past the rest (a position
        // update per fix, a ride's samples) without copying them, and its feed is not woken by them.
        return AnalyticsFeedSource(feed: EmbeddedFeed(source: producer, baseURL: base, internalToken: configuration.service.internalToken ?? "",
                                                      eventTypes: Set(AnalyticsEvents.readers.keys)),
                                   lag: lag)
    }

    /// The consumer target of `name` writing generation `tables`, on the storage's backend.
    static func target(storage: ServiceStorage, name: String, tables: ProjectionTables) -> any ConsumerTarget {
        storage.backend(sqlite: { database -> any ConsumerTarget in SQLiteAnalyticsTarget(database: database, name: name, tables: tables) },
                        postgres: { database -> any ConsumerTarget in PostgresAnalyticsTarget(database: database, name: name, tables: tables) })
    }

    static func runner<Source: EventSource>(_ source: Source, storage: ServiceStorage, name: String, tables: ProjectionTables,
                                            configuration: AnalyticsConfiguration, logger: Logger) -> any ConsumerService {
        let pollTimeout = storage.settings.kafkaBrokers == nil ? min(configuration.pollTimeout, .seconds(30)) : configuration.pollTimeout
        // The runner is generic over the concrete target: ingest calls it directly, without an existential per batch.
        return storage.backend(sqlite: { database -> any ConsumerService in
            ConsumerRunner(source: source, target: SQLiteAnalyticsTarget(database: database, name: name, tables: tables),
                           batchSize: configuration.batchSize, pollTimeout: pollTimeout, logger: logger)
        }, postgres: { database -> any ConsumerService in
            ConsumerRunner(source: source, target: PostgresAnalyticsTarget(database: database, name: name, tables: tables),
                           batchSize: configuration.batchSize, pollTimeout: pollTimeout, logger: logger)
        })
    }
}
