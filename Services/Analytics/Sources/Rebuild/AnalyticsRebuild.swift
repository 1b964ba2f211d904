import Contracts
import EventSourcing
import Foundation
import GRDB
import Logging
import Messaging
import PostgresNIO
import ServiceKit

/// `analytics rebuild` (and later `waypoint analytics rebuild`): replays every topic from its beginning into the tables
/// of a new generation, then swaps them in, in one transaction — while the live service may keep running.
///
/// 1. **Fresh tables.** Generation n + 1 gets `<table>__rebuild` tables — the analytics tables and their dedupe records
///    (`analytics_inbox`) — left-overs of an aborted rebuild dropped, and consumers named `<live name>__rebuild` whose
///    source positions start empty.
/// 2. **Replay.** Each topic is read from the beginning — the embedded feed from position 0, Kafka as a new consumer
///    group (`analytics-rebuild-g<n+1>-<random>`, earliest offset) — through the same targets as live, so dedupe works
///    exactly as live, and an event that cannot be applied stops the rebuild loudly (nothing is swapped).
/// 3. **Swap**, in one transaction: the rebuild must contain everything the live consumers applied — every live dedupe
///    record (source stream) has a rebuilt one at least at its version, a check that holds on both transports whatever
///    the interleaving (Kafka offsets and feed positions are not comparable; stream versions are). If the live consumers
///    moved on meanwhile, the rebuild reads on and tries again. Then the live tables are dropped and the rebuilt ones
///    (dedupe records included) renamed, the rebuild's source positions become the live consumers', and the generation
///    is recorded. SQLite's write transaction excludes live batches; on PostgreSQL the swap first takes every live
///    consumer's advisory lock (each batch takes its own first), so it waits for the batch in flight and cannot
///    deadlock with one. A running live consumer continues from its own position: whatever the rebuild applied beyond
///    it is skipped by the (now rebuilt) dedupe records; what neither applied, it applies.
///
/// Run one rebuild at a time.
public struct AnalyticsRebuild: Sendable {
    /// What a rebuild did.
    public struct Report: Codable, Sendable, Hashable {
        /// The generation now live.
        public var generation: Int
        /// Events applied to the rebuilt tables, per topic.
        public var appliedEvents: [String: Int]
        /// Swap attempts (more than 1 when the live consumers moved on during the replay).
        public var swapAttempts: Int
        public var seconds: Double
    }

    let configuration: AnalyticsConfiguration
    let storage: ServiceStorage
    let logger: Logger
    let timeout: Duration

    public init(configuration: AnalyticsConfiguration, storage: ServiceStorage, logger: Logger, timeout: Duration = .seconds(600)) {
        self.configuration = configuration
        self.storage = storage
        self.logger = logger
        self.timeout = timeout
    }

    /// Opens the configured storage and rebuilds (for the command line).
    public static func run(configuration: AnalyticsConfiguration, timeout: Duration = .seconds(600)) async throws -> Report {
        try await ServiceLauncher.run(service: configuration.service, runtime: configuration.runtime) { storage, logger in
            try await AnalyticsRebuild(configuration: configuration, storage: storage, logger: logger, timeout: timeout).run()
        }
    }

    private struct Lane {
        var topic: Topic
        var source: any LagReportingSource
        var target: any ConsumerTarget
        var positions: [String: Int64]
        var applied = 0
    }

    public func run() async throws -> Report {
        let started = ContinuousClock.now
        let deadline = started + timeout
        let database = AnalyticsDatabase(storage)
        try await database.tune()
        let live = try await database.prepareLive()
        let generation = live + 1
        let tables = ProjectionTables(generation: generation, isRebuild: true)
        try await begin(database, tables: tables)
        let metrics = ServiceMetrics()  // the rebuild's lag gauges stay out of the live service's metrics
        let group = "analytics-rebuild-g\(generation)-\(UUID().uuidString.prefix(8).lowercased())"
        var lanes: [Lane] = []
        do {
            let report = try await replay(&lanes, database: database, tables: tables, group: group, metrics: metrics, started: started,
                                          deadline: deadline)
            for lane in lanes { await lane.source.close() }
            return report
        } catch {
            for lane in lanes { await lane.source.close() }
            throw error
        }
    }

    private func replay(_ lanes: inout [Lane], database: AnalyticsDatabase, tables: ProjectionTables, group: String, metrics: ServiceMetrics,
                        started: ContinuousClock.Instant, deadline: ContinuousClock.Instant) async throws -> Report {
        let generation = tables.generation
        for topic in configuration.topics {
            let topicGroup = AnalyticsConsumers.groupID(group, topic)
            let lag = TopicLag(topic: topic.name, group: topicGroup, maxLag: configuration.maxLagEvents, metrics: metrics)
            guard let source = try AnalyticsConsumers.source(topic, configuration: configuration, storage: storage, lag: lag, groupID: topicGroup,
                                                             logger: logger) else { continue }
            let target = AnalyticsConsumers.target(storage: storage, name: AnalyticsConsumerName.rebuild(topic), tables: tables)
            lanes.append(Lane(topic: topic, source: source, target: target, positions: try await target.prepare()))
        }
        let liveConsumers = try await liveConsumerNames(database)
        let rebuilt = Set(lanes.map { AnalyticsConsumerName.live($0.topic) })
        let unreachable = liveConsumers.subtracting(rebuilt)
        guard unreachable.isEmpty else {
            throw AnalyticsRebuildError.topicNotReplayable(consumers: unreachable.sorted())
        }
        logger.info("rebuilding analytics", metadata: ["generation": "\(generation)", "topics": "\(lanes.map(\.topic.name))"])
        var attempts = 0
        while true {
            for index in lanes.indices { try await catchUp(&lanes[index], deadline: deadline) }
            attempts += 1
            if try await swap(database, lanes: lanes.map(\.topic), generation: generation) { break }
            guard ContinuousClock.now < deadline else { throw AnalyticsRebuildError.timedOut(after: timeout) }
            logger.info("live consumers moved on during the rebuild; reading on", metadata: ["attempt": "\(attempts)"])
        }
        let seconds = (ContinuousClock.now - started).timeInterval
        let report = Report(generation: generation, appliedEvents: Dictionary(uniqueKeysWithValues: lanes.map { ($0.topic.name, $0.applied) }),
                            swapAttempts: attempts, seconds: (seconds * 1000).rounded() / 1000)
        logger.info("analytics rebuilt", metadata: ["generation": "\(generation)", "events": "\(report.appliedEvents)"])
        return report
    }

    /// Reads a lane until its source has nothing more (embedded: an empty page; Kafka: an empty poll with every
    /// partition read to its high watermark, or 10 s of empty polls). Transport errors are retried until the deadline.
    private func catchUp(_ lane: inout Lane, deadline: ContinuousClock.Instant) async throws {
        let kafka = storage.settings.kafkaBrokers != nil
        var idlePolls = 0
        var backoff = Duration.milliseconds(100)
        while true {
            guard ContinuousClock.now < deadline else { throw AnalyticsRebuildError.timedOut(after: timeout) }
            let batch: [IncomingEvent]
            do {
                batch = try await lane.source.next(maxEvents: configuration.batchSize, timeout: kafka ? .milliseconds(500) : .zero,
                                                   positions: lane.positions)
                backoff = .milliseconds(100)
            } catch {
                logger.warning("rebuild: event source unavailable; retrying", metadata: ["topic": "\(lane.topic.name)", "error": "\(error)"])
                try await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
                continue
            }
            if batch.isEmpty {
                idlePolls += 1
                if !kafka || (lane.source.lag.hasCaughtUp && lane.source.lag.lag == 0) || idlePolls >= 20 { return }
                continue
            }
            idlePolls = 0
            lane.applied += try await lane.target.apply(batch.map(\.event))
            try await lane.source.acknowledge(batch)
            for incoming in batch {
                lane.positions[incoming.event.source] = max(lane.positions[incoming.event.source] ?? 0, incoming.event.position)
            }
        }
    }

    // MARK: SQL

    /// Dedupe records of the live generation that the rebuilt one does not cover (same stream key, at least the version).
    static func inboxMissing(_ generation: Int) -> String {
        let live = ProjectionTables(generation: generation, isRebuild: false), rebuild = ProjectionTables(generation: generation, isRebuild: true)
        return """
            SELECT COUNT(*) FROM \(live(AnalyticsSchema.inbox)) l WHERE NOT EXISTS (
                SELECT 1 FROM \(rebuild(AnalyticsSchema.inbox)) r WHERE r.stream_key = l.stream_key AND r.last_version >= l.last_version)
            """
    }

    /// Drops what an aborted rebuild left and creates the fresh tables.
    private func begin(_ database: AnalyticsDatabase, tables: ProjectionTables) async throws {
        let prefixes = configuration.topics.map { "consumer:\(AnalyticsConsumerName.rebuild($0)):" }
        switch database {
        case .sqlite(let sqlite):
            try await sqlite.write { db in
                try SQLiteCheckpoints.migrate(db)
                for table in AnalyticsSchema.tables { try db.execute(sql: "DROP TABLE IF EXISTS \(tables(table))") }
                for statement in AnalyticsSchema.createStatements(tables, dialect: .sqlite) { try db.execute(sql: statement) }
                for prefix in prefixes {
                    try db.execute(sql: "DELETE FROM es_projections WHERE substr(name, 1, \(prefix.utf8.count)) = ?", arguments: [prefix])
                }
            }
        case .postgres(let postgres):
            try await postgres.createSchemaIfNeeded()
            try await postgres.transaction { connection in
                try await PostgresCheckpoints.migrate(connection, logger: postgres.logger)
                for table in AnalyticsSchema.tables {
                    try await connection.query("DROP TABLE IF EXISTS \(unescaped: tables(table))", logger: postgres.logger)
                }
                for statement in AnalyticsSchema.createStatements(tables, dialect: .postgres) {
                    try await connection.query("\(unescaped: statement)", logger: postgres.logger)
                }
                for prefix in prefixes {
                    try await connection.query(AnalyticsSQL.postgres(
                        "DELETE FROM es_projections WHERE substr(name, 1, \(prefix.utf8.count)) = $1", [.text(prefix)]), logger: postgres.logger)
                }
            }
        }
    }

    /// The live analytics consumers that have read anything (their source positions exist).
    private func liveConsumerNames(_ database: AnalyticsDatabase) async throws -> Set<String> {
        let rows = try await database.fetch([AnalyticsQuery("SELECT name FROM es_projections WHERE substr(name, 1, 19) = 'consumer:analytics_'")])
        let known = Set(AnalyticsConfiguration.allTopics.map(AnalyticsConsumerName.live))
        return Set(rows[0].compactMap { $0.text(0)?.split(separator: ":").dropFirst().first.map(String.init) }.filter(known.contains))
    }

    /// Swaps the rebuilt generation in if it contains everything the live consumers applied; `false` otherwise (and
    /// nothing changed).
    private func swap(_ database: AnalyticsDatabase, lanes topics: [Topic], generation: Int) async throws -> Bool {
        let live = ProjectionTables(generation: generation, isRebuild: false)
        let rebuild = ProjectionTables(generation: generation, isRebuild: true)
        let missing = Self.inboxMissing(generation)
        switch database {
        case .sqlite(let sqlite):
            return try await sqlite.write { db in
                // The write transaction is exclusive: no live batch commits between the check and the swap.
                guard try Int.fetchOne(db, sql: missing) == 0 else { return false }
                for table in AnalyticsSchema.tables {
                    try db.execute(sql: "DROP TABLE IF EXISTS \(live(table))")
                    try db.execute(sql: "ALTER TABLE \(rebuild(table)) RENAME TO \(live(table))")
                }
                for topic in topics {
                    for (sql, arguments) in Self.handOver(topic) {
                        try db.execute(sql: AnalyticsDialect.sqlite.text(sql), arguments: StatementArguments(arguments.map(\.sqliteValue)))
                    }
                }
                try db.execute(sql: "UPDATE \(AnalyticsSchema.meta) SET value = ? WHERE key = 'generation'", arguments: [generation])
                return true
            }
        case .postgres(let postgres):
            return try await postgres.transaction { connection in
                // Every live consumer takes its advisory lock first in each batch: holding them all, the swap waits for
                // the batches in flight and no batch commits between the check and the swap (and none can deadlock with it).
                for name in AnalyticsConfiguration.allTopics.map(AnalyticsConsumerName.live).sorted() {
                    try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresAnalyticsTarget.lockKey(name)))", logger: postgres.logger)
                }
                for try await count in try await connection.query("\(unescaped: missing)", logger: postgres.logger).decode(Int64.self)
                where count > 0 {
                    return false
                }
                for table in AnalyticsSchema.tables {
                    try await connection.query("DROP TABLE IF EXISTS \(unescaped: live(table))", logger: postgres.logger)
                    try await connection.query("ALTER TABLE \(unescaped: rebuild(table)) RENAME TO \(unescaped: live(table))",
                                               logger: postgres.logger)
                }
                for topic in topics {
                    for (sql, arguments) in Self.handOver(topic) {
                        try await connection.query(AnalyticsSQL.postgres(sql, arguments), logger: postgres.logger)
                    }
                }
                try await connection.query(
                    "UPDATE analytics_meta SET value = \(Int64(generation)) WHERE key = 'generation'", logger: postgres.logger)
                return true
            }
        }
    }

    /// The rebuild consumer's source positions become the live consumer's (the dedupe records moved with the tables).
    private static func handOver(_ topic: Topic) -> [(String, [SQLArg])] {
        let live = AnalyticsConsumerName.live(topic), rebuild = AnalyticsConsumerName.rebuild(topic)
        let livePrefix = "consumer:\(live):", rebuildPrefix = "consumer:\(rebuild):"
        return [
            ("DELETE FROM es_projections WHERE substr(name, 1, \(livePrefix.utf8.count)) = $1", [.text(livePrefix)]),
            ("""
             UPDATE es_projections SET name = $1 || substr(name, \(rebuildPrefix.utf8.count + 1))
             WHERE substr(name, 1, \(rebuildPrefix.utf8.count)) = $2
             """, [.text(livePrefix), .text(rebuildPrefix)]),
        ]
    }
}

/// Why a rebuild stopped (the live tables are unchanged).
public enum AnalyticsRebuildError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The live service consumes topics this rebuild cannot read (their producer URL is not configured here).
    case topicNotReplayable(consumers: [String])
    /// The replay did not finish (producers unreachable, or live consumers faster than the replay).
    case timedOut(after: Duration)

    public var description: String {
        switch self {
        case .topicNotReplayable(let consumers):
            "the live consumers \(consumers.joined(separator: ", ")) have applied events this rebuild cannot replay: configure their producers' URLs"
        case .timedOut(let duration):
            "the rebuild did not finish within \(duration) (a producer unreachable, or the live consumers faster than the replay); the live tables are unchanged"
        }
    }
}
