import EventSourcing
import Foundation
import Logging

/// Runs the benchmark against a `SQLiteEventStore` in a new temporary file, deleted afterwards.
enum SQLiteEventStoreBench {
    static func run(workload: EventStoreWorkload, parentDirectory: URL, logger: Logger) async throws -> EventStoreFigures {
        let directory = parentDirectory.appendingPathComponent("waypoint-bench-\(UUID().uuidString.prefix(8).lowercased())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("eventstore.sqlite").path
        let database = try SQLiteServiceDatabase(path: path)
        let store = try await SQLiteEventStore(database: database)
        // The figures only mean something at a known durability: say which one they were taken at.
        let synchronous = try database.writerSynchronousLevel()
        if synchronous == 2 {
            logger.info("sqlite: \(path) (WAL, writer at synchronous=FULL)")
        } else {
            logger.warning("sqlite: \(path): writer at synchronous=\(synchronous), not FULL (2): commits are not power-loss safe")
        }
        let runner = ProjectionRunner(
            store: store, target: SQLiteProjectionTarget(database: database, projection: SQLiteStreamTotalsProjection()),
            batchSize: workload.projectionBatchSize, logger: logger)
        let benchmark = EventStoreBenchmark(store: store, workload: workload, logger: logger)
        return try await benchmark.run {
            try await runner.rebuild()
            return try await SQLiteStreamTotalsProjection.countedEvents(database)
        }
    }
}
