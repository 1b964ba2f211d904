import Contracts
import EventSourcing
import Foundation
import Logging
import Messaging
import PostgresNIO

/// The PostgreSQL consumer target of the analytics consumers: the same plan as ``SQLiteAnalyticsTarget``
/// (``AnalyticsBatch``) in one transaction. Dedupe records and tombstones of the whole batch are read with one query
/// each (`= ANY($1)`), then the plan's statements run in order. A transaction-scoped advisory lock on the consumer's
/// name serialises batches of the same consumer across service instances (the rows a batch will insert do not exist
/// yet, so row locks could not), and lets a rebuild's swap wait for the batch in flight.
public struct PostgresAnalyticsTarget: ConsumerTarget {
    public let database: PostgresServiceDatabase
    public let name: String
    let tables: ProjectionTables
    let statements: AnalyticsStatements

    public init(database: PostgresServiceDatabase, name: String, tables: ProjectionTables) {
        self.database = database
        self.name = name
        self.tables = tables
        statements = AnalyticsStatements(tables, dialect: .postgres)
    }

    /// Every consumer analytics runs (live and rebuild, every topic), in name order.
    static let everyConsumer = AnalyticsConfiguration.allTopics.flatMap { [AnalyticsConsumerName.live($0), AnalyticsConsumerName.rebuild($0)] }.sorted()

    /// `pg_advisory_xact_lock` key of a consumer.
    static func lockKey(_ consumer: String) -> Int64 {
        Int64(bitPattern: consumer.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 })
    }

    public func prepare() async throws -> [String: Int64] {
        try await database.createSchemaIfNeeded()
        let prefix = "consumer:\(name):", tables = tables, logger = database.logger
        return try await database.transaction { connection in
            // Every batch takes its consumer's advisory lock before it writes. `CREATE … IF NOT EXISTS` locks the table
            // even when the index exists (a ShareLock, which a batch's writes wait for), so DDL beside a batch of
            // another topic deadlocked (40P01: the topics' consumers start together; a rebuild prepares while the live
            // ones run). Holding every consumer's lock — live and rebuild, in name order, the order the swap takes the
            // live ones in — the statements run with no batch in flight.
            for consumer in Self.everyConsumer {
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey(consumer)))", logger: logger)
            }
            try await PostgresCheckpoints.migrate(connection, logger: logger)
            for statement in AnalyticsSchema.createStatements(tables, dialect: .postgres) {
                try await connection.query("\(unescaped: statement)", logger: logger)
            }
            var positions: [String: Int64] = [:]
            let rows = try await connection.query("SELECT name, position FROM es_projections WHERE starts_with(name, \(prefix))", logger: logger)
            for try await (name, position) in rows.decode((String, Int64).self) {
                positions[String(name.dropFirst(prefix.count))] = position
            }
            return positions
        }
    }

    public func apply(_ events: [PublishedEvent]) async throws -> Int {
        do {
            return try await applyBatch(events)
        } catch let failure as EventFailure {
            // See SQLiteAnalyticsTarget.apply: the kernel's target raises the runner's `ConsumerFailure`.
            let reporter = PostgresConsumerTarget(database: database, handler: FailureReporter(name: name, reason: failure.reason))
            _ = try await reporter.prepare()
            _ = try await reporter.apply([failure.event])
            throw failure
        }
    }

    private func applyBatch(_ events: [PublishedEvent]) async throws -> Int {
        let batch = await AnalyticsBatch.prepare(events)
        let logger = database.logger, name = name, statements = statements, tables = tables
        return try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey(name)))", logger: logger)
            var stored: [String: Int64] = [:]
            let unique = Array(Set(batch.keys))
            let versions = try await connection.query(
                "SELECT stream_key, last_version FROM \(unescaped: tables(AnalyticsSchema.inbox)) WHERE stream_key = ANY(\(unique))",
                logger: logger)
            for try await (key, version) in versions.decode((String, Int64).self) { stored[key] = version }
            let (decoded, touched) = try AnalyticsBatch.decode(batch, versions: stored)
            let ids = Array(AnalyticsBatch.idsToCheck(decoded))
            var erased: Set<String> = []
            if !ids.isEmpty {
                let byTombstone = Dictionary(ids.map { (AnalyticsFold.tombstone($0), $0) }, uniquingKeysWith: { first, _ in first })
                let found = try await connection.query(
                    "SELECT tombstone FROM \(unescaped: tables(AnalyticsSchema.erased)) WHERE tombstone = ANY(\(Array(byTombstone.keys)))",
                    logger: logger)
                for try await tombstone in found.decode(String.self) { if let id = byTombstone[tombstone] { erased.insert(id) } }
            }
            for write in AnalyticsBatch.plan(decoded, erased: erased, inbox: touched) {
                try await connection.query(AnalyticsSQL.postgres(statements[write.statement], write.arguments), logger: logger)
            }
            var positions: [String: Int64] = [:]
            for event in events { positions[event.source] = max(positions[event.source] ?? 0, event.position) }
            for (source, position) in positions {
                try await PostgresCheckpointStore.save(position, for: "consumer:\(name):\(source)", on: connection)
            }
            return decoded.count
        }
    }

    /// A handler that fails every event with `reason`.
    struct FailureReporter: PostgresEventHandler {
        let name: String
        let reason: String

        func createTables(_ connection: PostgresConnection) async throws {}
        func handle(_ event: PublishedEvent, _ connection: PostgresConnection) async throws { throw FailureReason(description: reason) }
    }
}
