import ArgumentParser
import EventSourcing
import Foundation
import GRDB
import Logging

/// Which commit durability the SQLite figures are measured at.
enum SQLiteDurability: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// `synchronous = FULL` on the writer: a returned append survives a power loss, as the store documents.
    case full
    /// Whatever `SQLiteServiceDatabase` configured (GRDB 7.10 leaves its WAL pool at `synchronous = NORMAL`).
    case asOpened = "as-opened"
}

/// Runs the benchmark against a `SQLiteEventStore` in a new temporary file, deleted afterwards.
enum SQLiteEventStoreBench {
    static func run(
        workload: EventStoreWorkload, durability: SQLiteDurability, parentDirectory: URL, logger: Logger
    ) async throws -> EventStoreFigures {
        let directory = parentDirectory.appendingPathComponent("waypoint-bench-\(UUID().uuidString.prefix(8).lowercased())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("eventstore.sqlite").path
        let database = try SQLiteServiceDatabase(path: path)
        let store = try await SQLiteEventStore(database: database)
        try await configure(durability, database, logger: logger)
        logger.info("sqlite: \(path)")
        let runner = ProjectionRunner(
            store: store, target: SQLiteProjectionTarget(database: database, projection: SQLiteStreamTotalsProjection()),
            batchSize: workload.projectionBatchSize, logger: logger)
        let benchmark = EventStoreBenchmark(store: store, workload: workload, logger: logger)
        return try await benchmark.run {
            try await runner.rebuild()
            return try await SQLiteStreamTotalsProjection.countedEvents(database)
        }
    }

    /// Reads the writer connection's settings back (the figures only mean something at a known durability) and
    /// raises `synchronous` to FULL when asked to.
    private static func configure(
        _ durability: SQLiteDurability, _ database: SQLiteServiceDatabase, logger: Logger
    ) async throws {
        let (journalMode, opened) = try await database.pool.writeWithoutTransaction { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?",
             try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1)
        }
        logger.info("sqlite: writer opened with journal_mode=\(journalMode) synchronous=\(synchronousName(opened))")
        guard durability == .full, opened != 2 else { return }
        logger.warning("""
            sqlite: SQLiteServiceDatabase leaves the writer at synchronous=\(synchronousName(opened)) \
            (GRDB's DatabasePool sets NORMAL in WAL mode after prepareDatabase); measuring at FULL as the store documents \
            (--sqlite-synchronous as-opened measures what it ships)
            """)
        try await database.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    }

    private static func synchronousName(_ level: Int) -> String {
        switch level {
        case 0: "OFF"
        case 1: "NORMAL"
        case 2: "FULL"
        case 3: "EXTRA"
        default: "\(level)"
        }
    }
}
