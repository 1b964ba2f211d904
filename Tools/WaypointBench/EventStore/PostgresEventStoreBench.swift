import EventSourcing
import Foundation
import Logging
import PostgresNIO

/// Runs the benchmark against a `PostgresEventStore` in a new schema, dropped afterwards.
enum PostgresEventStoreBench {
    /// The environment variable naming the server; without it PostgreSQL is not measured.
    static let urlVariable = "WAYPOINT_BENCH_POSTGRES_URL"

    static func run(url: String, workload: EventStoreWorkload, logger: Logger) async throws -> EventStoreFigures {
        let schema = "bench_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
        // Appends hold one connection at a time (group commit); the others serve reads and the schema drop.
        let database = try PostgresServiceDatabase(url: url, schema: schema, maximumConnections: 4, logger: logger)
        logger.info("postgres: schema \(schema) (dropped afterwards)")
        return try await database.withRunning {
            do {
                let figures = try await measure(database, workload: workload, logger: logger)
                try await drop(schema, database)
                return figures
            } catch {
                try? await drop(schema, database)
                throw error
            }
        }
    }

    private static func measure(
        _ database: PostgresServiceDatabase, workload: EventStoreWorkload, logger: Logger
    ) async throws -> EventStoreFigures {
        let store = try await PostgresEventStore(database: database)
        let runner = ProjectionRunner(
            store: store, target: PostgresProjectionTarget(database: database, projection: PostgresStreamTotalsProjection()),
            batchSize: workload.projectionBatchSize, logger: logger)
        let benchmark = EventStoreBenchmark(store: store, workload: workload, logger: logger)
        return try await benchmark.run {
            try await runner.rebuild()
            return try await PostgresStreamTotalsProjection.countedEvents(database)
        }
    }

    private static func drop(_ schema: String, _ database: PostgresServiceDatabase) async throws {
        try await database.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE"))
    }
}
