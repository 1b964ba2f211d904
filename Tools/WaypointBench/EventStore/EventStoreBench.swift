import ArgumentParser
import Foundation

/// `waypoint-bench eventstore`: append, read and projection-rebuild throughput of the SQLite and PostgreSQL stores.
struct EventStoreBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eventstore",
        abstract: "Measures append, read-all and projection-rebuild throughput of the event stores.",
        discussion: """
            SQLite is always measured, in a temporary file. PostgreSQL is measured when \
            \(PostgresEventStoreBench.urlVariable) is set (e.g. by scripts/with-postgres.sh), in a fresh schema; \
            otherwise its figures are null.
            """
    )

    @Option(help: "Sequential single-event appends (c1 phase).")
    var singleAppends = 2_000

    @Option(help: "Single-event appends per writer in the 16-writer phase.")
    var appendsPerWriter = 1_000

    @Option(help: "Events written in 100-event appends (rounded down to a multiple of 100).")
    var events = 100_000

    @Option(help: "Concurrent writers of the 100-event appends.")
    var batchWriters = 1

    @Option(help: "Events per projection transaction during the rebuild.")
    var projectionBatchSize = 1_000

    @Option(name: .customLong("event-ids"), help: "Event ids: time-ordered (UUIDv7, NewEvent's default) or random (UUIDv4, client-supplied).")
    var eventIDs = EventIDKind.timeOrdered

    @Option(help: "Directory for the temporary SQLite database (default: the system temporary directory).")
    var directory: String?

    func validate() throws {
        guard singleAppends > 0, appendsPerWriter > 0, batchWriters > 0, projectionBatchSize > 0 else {
            throw ValidationError("sizes and writer counts must be positive")
        }
        guard events >= 100 else { throw ValidationError("--events must be at least 100") }
    }

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.eventstore")
        let workload = EventStoreWorkload(
            singleAppends: singleAppends, appendsPerWriter: appendsPerWriter, batchEvents: events,
            batchWriters: batchWriters, projectionBatchSize: projectionBatchSize, eventIDs: eventIDs)
        logger.info("configuration: \(workload)")
        let parent = directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        let sqlite = try await SQLiteEventStoreBench.run(
            workload: workload, parentDirectory: parent, logger: logger)
        var postgres: EventStoreFigures?
        if let url = ProcessInfo.processInfo.environment[PostgresEventStoreBench.urlVariable], !url.isEmpty {
            postgres = try await PostgresEventStoreBench.run(url: url, workload: workload, logger: logger)
        } else {
            logger.info("postgres: skipped (\(PostgresEventStoreBench.urlVariable) is not set)")
        }
        try BenchOutput.printJSON(EventStoreReport(sqlite: sqlite, postgres: postgres))
    }
}
