import ArgumentParser
import Foundation
import Logging
import PathReview
import ReferenceData

/// `waypoint-bench paths`: the path-review service's figures (issue 20) — the approved network by area on both
/// backends, street search, a 20-piece manual draft, and approve → published event, all through HTTP against the real
/// service seeded with `--paths` approved paths and `--reports` obstacle reports over the three cities
/// (``PathServiceBench``).
struct PathsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paths",
        abstract: "Measures path-review: bbox listing (SQLite, PostgreSQL), street search, 20-piece drafts, approve → event.",
        discussion: """
            One road network of krems.osm.gz, monaco.osm.gz and helsinki.osm.pbf from --data-dir. The approved paths \
            are routes of the service's own planner between random junctions 200 m–3 km apart (40 % Helsinki, 40 % \
            Krems, 20 % Monaco), written to the log as the draft aggregate decides them (create, publish, claim, approve), \
            then the obstacle reports on them. PostgreSQL is measured when WAYPOINT_BENCH_POSTGRES_URL is set (a fresh \
            schema bench_paths_<random>, dropped afterwards; the server needs PostGIS). See docs/benchmarks.md, "paths".
            """
    )

    @Option(help: "Approved paths seeded.")
    var paths = 10_000

    @Option(help: "Obstacle reports seeded on them (clustered into obstacles as the service does).")
    var reports = 50_000

    @Option(help: "Timed bbox requests per backend (after a warm-up of a tenth, at least 5).")
    var boxes = 500

    @Option(help: "Timed street searches (after a warm-up of a tenth).")
    var searches = 1_000

    @Option(help: "Timed 20-piece draft creations (POST /v1/paths/drafts).")
    var drafts = 200

    @Option(help: "Drafts approved one at a time for approve → event.")
    var approvals = 50

    @Option(help: "Directory of the extracts (default: ../shared/data, found like the other reference data).")
    var dataDir: String?

    @Option(help: "Seed of every random choice.")
    var seed: UInt64 = 20

    @Option(help: "Backends measured, comma-separated: sqlite, postgres (postgres needs WAYPOINT_BENCH_POSTGRES_URL).")
    var backends = "sqlite,postgres"

    @Option(help: "MiB of pre-rendered bbox features the service holds (WAYPOINT_PATH_REVIEW_FEATURE_CACHE_MB; 0: every page read whole).")
    var featureCacheMb = PathReviewConfiguration.defaultFeatureCacheMegabytes

    @Flag(help: "Keep what was seeded (the SQLite file, the PostgreSQL schema) for inspection; their names are logged.")
    var keep = false

    func validate() throws {
        guard paths > 0, reports >= 0, boxes > 0, searches > 0, drafts > 0, approvals > 0 else {
            throw ValidationError("--paths, --boxes, --searches, --drafts and --approvals must be positive, --reports not negative")
        }
        guard (0...4_096).contains(featureCacheMb) else { throw ValidationError("--feature-cache-mb must be 0…4096") }
        let chosen = backends.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !chosen.isEmpty, chosen.allSatisfy({ ["sqlite", "postgres"].contains($0) }) else {
            throw ValidationError("--backends must be sqlite, postgres or both, comma-separated")
        }
    }

    func run() async throws {
        let logger = BenchOutput.progressLogger(label: "waypoint.bench.paths")
        let figures = try await PathServiceBench.measure(settings, postgresURL: ProcessInfo.processInfo.environment[PostgresEventStoreBench.urlVariable],
                                                         logger: logger)
        try BenchOutput.printJSON(figures)
    }

    var settings: PathsBenchSettings {
        let directory = dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? ReferenceDataDirectory.locate() ?? URL(fileURLWithPath: "../shared/data", isDirectory: true)
        return PathsBenchSettings(dataDirectory: directory, paths: paths, reports: reports, boxes: boxes, searches: searches, drafts: drafts,
                                  approvals: approvals, seed: seed,
                                  backends: Set(backends.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }), keep: keep,
                                  featureCacheMegabytes: featureCacheMb)
    }
}

/// What one run measures and on what.
struct PathsBenchSettings: Sendable {
    var dataDirectory: URL
    var paths: Int
    var reports: Int
    var boxes: Int
    var searches: Int
    var drafts: Int
    var approvals: Int
    var seed: UInt64
    /// `sqlite`, `postgres` or both.
    var backends: Set<String> = ["sqlite", "postgres"]
    /// Keep the seeded SQLite file and PostgreSQL schema.
    var keep = false
    /// MiB of pre-rendered features the service holds.
    var featureCacheMegabytes = PathReviewConfiguration.defaultFeatureCacheMegabytes

    /// Warm-up requests before `count` timed ones.
    static func warmUp(_ count: Int) -> Int { max(5, count / 10) }
}

struct PathsBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
