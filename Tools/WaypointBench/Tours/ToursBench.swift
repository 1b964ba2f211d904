import ArgumentParser
import Contracts
import EventSourcing
import Foundation
import GRDB
import Logging
import Messaging
import PostgresNIO
import TourManagement

/// `waypoint-bench tours`: tour discovery search (`TourCatalog.search`) over a generated catalogue, on both backends.
struct ToursBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tours",
        abstract: "Measures tour search over 10,000 published tours (100,000 stops) for a mix of filter combinations.",
        discussion: """
            Tours are generated deterministically (--seed) over ~200 gazetteer cities, appended as TourPublished events \
            and projected into the discovery read model; then every filter combination of the mix is searched \
            --queries times in process (TourCatalog.search). SQLite is always measured, in a temporary file; PostgreSQL \
            when \(PostgresEventStoreBench.urlVariable) is set (e.g. by scripts/with-postgres.sh), in a fresh schema; \
            otherwise its figures are null. See docs/benchmarks.md, `tours`.
            """
    )

    @Option(help: "Published tours to generate.")
    var tours = 10_000

    @Option(help: "Stops per tour.")
    var stopsPerTour = 10

    @Option(help: "Timed queries per filter combination.")
    var queries = 500

    @Option(help: "Untimed warm-up queries per filter combination.")
    var warmup = 20

    @Option(help: "Seed of the generated tours and queries.")
    var seed: UInt64 = 20_261_122

    @Option(name: .customLong("combination"), help: "Run only this combination (repeatable; default: all).")
    var combinations: [String] = []

    @Option(help: "Directory for the temporary SQLite database (default: the system temporary directory).")
    var directory: String?

    @Flag(inversion: .prefixedNo,
          help: "On PostgreSQL, VACUUM (ANALYZE) the read model after the load, as autovacuum would soon (--no-postgres-vacuum: ANALYZE only).")
    var postgresVacuum = true

    @Flag(help: "Keep the SQLite file and the PostgreSQL schema afterwards (for EXPLAIN); their names go to stderr.")
    var keep = false

    func validate() throws {
        guard tours > 0, stopsPerTour >= 2, queries > 0, warmup >= 0 else {
            throw ValidationError("--tours and --queries must be positive, --stops-per-tour at least 2")
        }
        let unknown = Set(combinations).subtracting(TourSearchMix.all.map(\.name))
        guard unknown.isEmpty else {
            throw ValidationError("unknown combination(s) \(unknown.sorted()); known: \(TourSearchMix.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.tours")
        let clock = ContinuousClock()
        let start = clock.now
        let (cities, _) = try Gazetteer.loadReferenceData()
        let loaded = clock.now
        let corpus = try TourCorpus.generate(cities: cities, tours: tours, stopsPerTour: stopsPerTour, seed: seed)
        let largest = corpus.destinations.max { $0.tours < $1.tours }!
        logger.info("""
            corpus: \(corpus.events.count) tours, \(corpus.stops) stops over \(corpus.destinations.count) destinations \
            (largest \(largest.name) \(largest.tours), smallest \(corpus.destinations.map(\.tours).min()!)), \
            \(corpus.rareNames.count) distinct stop proper names; gazetteer read in \(secondsText(loaded - start)) s, \
            tours generated in \(secondsText(clock.now - loaded)) s (seed \(seed))
            """)
        let mix = TourSearchMix.make(corpus: corpus, perCombination: queries, warmup: warmup, seed: seed, only: Set(combinations))
        logger.info("mix: \(mix.combinations.count) combinations × \(queries) timed queries (+ \(warmup) warm-up each), shuffled")

        let parent = directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        let sqliteDirectory = parent.appendingPathComponent("waypoint-bench-tours-\(UUID().uuidString.prefix(8).lowercased())")
        defer { if !keep { try? FileManager.default.removeItem(at: sqliteDirectory) } }
        let sqlite = try await Self.measure(
            RuntimeSettings(serviceName: "tour-management", dataDirectory: sqliteDirectory,
                            backend: .sqlite(path: sqliteDirectory.appendingPathComponent("tour-management.sqlite").path)),
            backend: "sqlite", corpus: corpus, mix: mix, keep: keep, vacuum: postgresVacuum, logger: logger)
        var postgres: BackendSearchFigures?
        if let url = ProcessInfo.processInfo.environment[PostgresEventStoreBench.urlVariable], !url.isEmpty {
            let schema = "bench_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
            postgres = try await Self.measure(
                RuntimeSettings(serviceName: "tour-management", dataDirectory: sqliteDirectory, backend: .postgres(url: url, schema: schema)),
                backend: "postgres", corpus: corpus, mix: mix, keep: keep, vacuum: postgresVacuum, logger: logger)
        } else {
            logger.info("postgres: skipped (\(PostgresEventStoreBench.urlVariable) is not set)")
        }
        try BenchOutput.printJSON(TourSearchReport(tours: corpus.events.count, stops: corpus.stops, sqlite: sqlite, postgres: postgres))
    }

    /// Opens the storage as the service does, seeds and projects the tours, checks the read model and runs the mix.
    static func measure(_ settings: RuntimeSettings, backend: String, corpus: TourCorpus, mix: TourSearchMix, keep: Bool,
                        vacuum: Bool, logger: Logger) async throws -> BackendSearchFigures {
        var quiet = Logger(label: "waypoint.tour-management")
        quiet.logLevel = .warning
        return try await ServiceStorage.withOpen(settings, logger: quiet) { storage in
            switch settings.backend {
            case .sqlite(let path): logger.info("sqlite: \(path)\(keep ? " (kept)" : " (deleted afterwards)")")
            case .postgres(_, let schema): logger.info("postgres: schema \(schema ?? "public")\(keep ? " (kept)" : " (dropped afterwards)")")
            }
            do {
                let figures = try await seedAndSearch(storage, backend: backend, corpus: corpus, mix: mix, vacuum: vacuum, logger: logger)
                if !keep { try await dropSchema(storage) }
                return figures
            } catch {
                if !keep { try? await dropSchema(storage) }
                throw error
            }
        }
    }

    private static func seedAndSearch(_ storage: ServiceStorage, backend: String, corpus: TourCorpus, mix: TourSearchMix,
                                      vacuum: Bool, logger: Logger) async throws -> BackendSearchFigures {
        let store = AnyEventStore(storage.store)
        let clock = ContinuousClock()
        let t0 = clock.now
        try await corpus.seed(into: store)
        let appended = clock.now
        if let sqlite = storage.sqlite {
            let runner = ProjectionRunner(store: store, target: SQLiteProjectionTarget(database: sqlite, projection: SQLiteDiscoveryProjection()))
            try await runner.catchUp()
        } else {
            let runner = ProjectionRunner(store: store, target: PostgresProjectionTarget(database: storage.postgres!,
                                                                                          projection: PostgresDiscoveryProjection()))
            try await runner.catchUp()
        }
        let projected = clock.now
        var analyzed = projected
        if let postgres = storage.postgres {
            // Autovacuum vacuums and analyzes a table this size within a minute of the load; do it now, so the planner
            // has the statistics and the GIN index the state a running service's would (the pending list of the text
            // index merged: until it is, PostgreSQL scans it linearly and plans full-text searches as sequential scans).
            let maintenance = vacuum ? "VACUUM (ANALYZE) tour_search" : "ANALYZE tour_search"
            try await postgres.client.query(PostgresQuery(unsafeSQL: maintenance), logger: postgres.logger)
            analyzed = clock.now
        }
        logger.info("""
            \(backend): seeded \(corpus.events.count) TourPublished events in \(secondsText(appended - t0)) s (\(TourCorpus.seedingWriters) writers), \
            projected in \(secondsText(projected - appended)) s\(storage.postgres != nil ? ", \(vacuum ? "VACUUM (ANALYZE)" : "ANALYZE") \(secondsText(analyzed - projected)) s" : "")
            """)

        let listed = try await listedCount(storage)
        guard listed == corpus.events.count else {
            throw BenchError("\(backend): the read model lists \(listed) tours, expected \(corpus.events.count)")
        }
        return try await mix.run(TourCatalog(store: try await TourManagementStores.open(storage).catalog), backend: backend, logger: logger)
    }

    private static func listedCount(_ storage: ServiceStorage) async throws -> Int {
        if let sqlite = storage.sqlite {
            return try await sqlite.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tour_search WHERE listed = 1") ?? 0 }
        }
        let postgres = storage.postgres!
        for try await count in try await postgres.client.query(
            PostgresQuery(unsafeSQL: "SELECT count(*) FROM tour_search WHERE listed"), logger: postgres.logger).decode(Int64.self) {
            return Int(count)
        }
        return 0
    }

    private static func dropSchema(_ storage: ServiceStorage) async throws {
        guard let postgres = storage.postgres, case .postgres(_, let schema?) = storage.settings.backend else { return }
        try await postgres.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE"), logger: postgres.logger)
    }
}
