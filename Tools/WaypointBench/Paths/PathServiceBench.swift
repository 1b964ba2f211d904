import AsyncHTTPClient
import EventSourcing
import Foundation
import Logging
import Messaging
import PathReview
import PostgresNIO
import RoadNetwork
import ServiceKit
import ServiceTesting

/// `waypoint-bench paths` end to end: the real `path-review` service (`PathReviewServer.assemble` and its application,
/// as `path-review serve` runs them) with one road network of the three cities, its log seeded with the corpus's
/// approved paths and obstacle reports (``PathSeeding``), served on a loopback port and driven through HTTP with
/// signed access tokens — on SQLite (a temporary data directory, writer at `synchronous=FULL`) and, when a URL is
/// given, on PostgreSQL (a fresh schema, dropped afterwards).
///
/// - **bbox**: `GET /v1/paths?bbox=…&zoom=…` for the corpus's city viewports, one at a time, after a warm-up.
/// - **street search**: `GET /v1/streets?q=` with real street-name prefixes.
/// - **draft validate**: `POST /v1/paths/drafts` of a 20-piece manual draft (validation, the pieces resolved and joined
///   on the network, the draft's append, the answer); the planner alone is logged beside it.
/// - **approve → event**: drafts created, published and claimed through HTTP, then approved one at a time; from sending
///   the moderator's decision until a consumer long-polling the embedded feed receives the `PathApproved`.
enum PathServiceBench {
    static let internalToken = "waypoint-bench-internal-token"

    enum Backend: CustomStringConvertible {
        case sqlite
        case postgres(url: String)

        var description: String {
            switch self {
            case .sqlite: "sqlite"
            case .postgres: "postgres"
            }
        }
    }

    /// The figures of one backend.
    struct BackendRun: Sendable {
        var bbox: Latencies
        var streetSearch: Latencies
        var draftValidate: Latencies
        var approveToEvent: Latencies
    }

    static func measure(_ settings: PathsBenchSettings, postgresURL: String?, logger: Logger) async throws -> PathsFigures {
        let roads = try loadRoads(settings.dataDirectory, logger: logger)
        logger.info("""
            paths \(settings.paths), reports \(settings.reports), boxes \(settings.boxes), searches \(settings.searches), \
            drafts \(settings.drafts), approvals \(settings.approvals), seed \(settings.seed), feature cache \(settings.featureCacheMegabytes) MiB
            """)
        let corpus = try PathsCorpus.make(settings, roads: roads, logger: logger)
        plannerAlone(corpus, roads: roads, logger: logger)
        var sqlite: BackendRun?
        if settings.backends.contains("sqlite") {
            sqlite = try await run(.sqlite, corpus: corpus, roads: roads, settings: settings, logger: logger)
        }
        var postgres: BackendRun?
        if !settings.backends.contains("postgres") {
            logger.info("postgres: not measured (--backends)")
        } else if let postgresURL {
            postgres = try await run(.postgres(url: postgresURL), corpus: corpus, roads: roads, settings: settings, logger: logger)
        } else {
            logger.info("postgres: not measured (\(PostgresEventStoreBench.urlVariable) is not set)")
        }
        guard let primary = sqlite ?? postgres else { throw PathsBenchError("no backend measured (postgres needs \(PostgresEventStoreBench.urlVariable))") }
        let boxes = [("sqlite", sqlite), ("postgres", postgres)].compactMap { name, run in run.map { "\(name) \(verdict($0.bbox, 10))" } }
        logger.info("""
            targets (issue 20): bbox p99 ≤ 10 ms — \(boxes.joined(separator: ", ")); \
            street search p99 ≤ 2 ms — \(verdict(primary.streetSearch, 2)); approve → event ≤ 1 s — \(verdict(primary.approveToEvent, 1_000, max: true))
            """)
        return PathsFigures(sqlite: sqlite.map { PathsFigures.BackendFigures(bboxMilliseconds: $0.bbox) },
                            postgres: postgres.map { PathsFigures.BackendFigures(bboxMilliseconds: $0.bbox) },
                            streetSearchMilliseconds: primary.streetSearch, draftValidateMilliseconds: primary.draftValidate,
                            approveToEventMilliseconds: primary.approveToEvent)
    }

    private static func verdict(_ latencies: Latencies, _ target: Double, max: Bool = false) -> String {
        let figure = max ? latencies.percentile(1) : latencies.percentile(0.99)
        return String(format: "%.2f ms ", figure) + (figure <= target ? "✓" : "✗")
    }

    /// One network of the three extracts, through a compiled cache kept in the temporary directory between runs.
    static func loadRoads(_ directory: URL, logger: Logger) throws -> PathReviewRoads {
        let extracts = RoadsBench.cities.map { directory.appendingPathComponent($0.1).path }
        for path in extracts where !FileManager.default.fileExists(atPath: path) {
            throw PathsBenchError("\(path) not found (give --data-dir or WAYPOINT_REFERENCE_DATA_DIR)")
        }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-bench-paths-roads").path
        let clock = ContinuousClock(), started = clock.now
        let network = try RoadNetworkLoader.load(extracts: extracts, cacheDirectory: cache)
        let roads = PathReviewRoads(network: network)
        logger.info("""
            road network of krems, monaco and helsinki: \(network.graph.vertexCount) vertices, \(network.graph.edgeCount) edges \
            (\(network.source)), \(roads.streets.index.streets.count) streets, router and catalogue in \(clock.now - started)
            """)
        return roads
    }

    /// The planner alone on the manual drafts (what `draft_validate_ms` spends resolving the pieces), for stderr.
    private static func plannerAlone(_ corpus: PathsCorpus, roads: PathReviewRoads, logger: Logger) {
        let planner = PathDraftPlanner(roads: roads)
        var latencies = Latencies(resolution: 0.01)
        let clock = ContinuousClock()
        for round in 0..<3 {
            for draft in corpus.manualDrafts {
                let started = clock.now
                _ = try? planner.plan(pieces: draft.pieces, obstacles: [])
                if round > 0 { latencies.record(clock.now - started) }
            }
        }
        logger.info("planner alone, 20-piece manual drafts (in process): \(latencies)")
    }

    static func run(_ backend: Backend, corpus: PathsCorpus, roads: PathReviewRoads, settings: PathsBenchSettings, logger: Logger) async throws
        -> BackendRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-bench-paths-\(UUID().uuidString.prefix(8))")
        defer { if !settings.keep { try? FileManager.default.removeItem(at: directory) } }
        let storageBackend: RuntimeSettings.Backend
        switch backend {
        case .sqlite:
            storageBackend = .sqlite(path: directory.appendingPathComponent("path-review.sqlite").path)
            if settings.keep { logger.info("sqlite: \(directory.path) (kept: --keep)") }
        case .postgres(let url):
            let schema = "bench_paths_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
            logger.info("postgres: schema \(schema) (\(settings.keep ? "kept: --keep" : "dropped afterwards"))")
            storageBackend = .postgres(url: url, schema: schema)
        }
        let quiet = quietLogger
        let configuration = PathReviewConfiguration(
            service: ServiceConfiguration(serviceName: "path-review", port: 0, internalToken: internalToken, logLevel: .critical),
            runtime: RuntimeSettings(serviceName: "path-review", dataDirectory: directory, backend: storageBackend),
            endpoints: ServiceEndpoints(baseURLs: ["auth": URL(string: "http://127.0.0.1:\(try closedPort())")!]), extracts: [])
            .withFeatureCacheMegabytes(settings.featureCacheMegabytes)
        let name = backend.description
        return try await ServiceStorage.withOpen(configuration.runtime, logger: quiet) { storage in
            do {
                let figures = try await serve(configuration, storage: storage, name: name, corpus: corpus, roads: roads, settings: settings,
                                              logger: logger)
                if !settings.keep { try await dropSchema(of: storage) }
                return figures
            } catch {
                if !settings.keep { try? await dropSchema(of: storage) }
                throw error
            }
        }
    }

    private static func dropSchema(of storage: ServiceStorage) async throws {
        guard let database = storage.postgres, case .postgres(_, let schema?) = storage.settings.backend else { return }
        try await database.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE"))
    }

    /// The drafts are timed on the service before its network is seeded: on the seeded network one of the 10,000
    /// approved paths covers almost every street a 20-piece route follows, so the draft would rightly be refused
    /// (`covered-by-path`); the same pieces, planner and overlay reads run, on empty overlay tables. Everything else is
    /// timed on the seeded service.
    private static func serve(_ configuration: PathReviewConfiguration, storage: ServiceStorage, name: String, corpus: PathsCorpus,
                              roads: PathReviewRoads, settings: PathsBenchSettings, logger: Logger) async throws -> BackendRun {
        if let level = try storage.sqlite?.writerSynchronousLevel() { logger.info("\(name): SQLite writer synchronous = \(level)") }
        let server = try await PathReviewServer.assemble(configuration, storage: storage, roads: roads, logger: quietLogger)
        let drafts = try await withApplication(server) { http in
            try await timeDrafts(http, corpus: corpus, count: settings.drafts, name: name, logger: logger)
        }
        try await seed(server, storage: storage, name: name, corpus: corpus, logger: logger)
        return try await withApplication(server) { http in
            let bbox = try await timeBoxes(http, corpus: corpus, warmUp: PathsBenchSettings.warmUp(settings.boxes), name: name, logger: logger)
            let streets = try await timeSearches(http, corpus: corpus, warmUp: PathsBenchSettings.warmUp(settings.searches), name: name,
                                                 logger: logger)
            let approvals = try await timeApprovals(http, corpus: corpus, name: name, logger: logger)
            return BackendRun(bbox: bbox, streetSearch: streets, draftValidate: drafts, approveToEvent: approvals)
        }
    }

    /// `body` with the service's application on a loopback port, once its read models are live.
    private static func withApplication<T: Sendable>(_ server: PathReviewServer, _ body: @escaping @Sendable (PathsHTTP) async throws -> T)
        async throws -> T {
        try await LoopbackServer.run({ reportPort in
            try server.application(metrics: ServiceMetrics(),
                                   keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                                   logger: quietLogger, onServerRunning: { reportPort($0.localAddress!.port!) })
        }, body: { port in
            await waitUntilLive([server.draftList, server.reviewQueue, server.approvedNetwork])
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                let result = try await body(PathsHTTP(client: client, base: "http://127.0.0.1:\(port)"))
                try await client.shutdown()
                return result
            } catch {
                try? await client.shutdown()
                throw error
            }
        })
    }

    /// The corpus into the log, then every read model and the notifier caught up, as after a restart.
    private static func seed(_ server: PathReviewServer, storage: ServiceStorage, name: String, corpus: PathsCorpus, logger: Logger) async throws {
        let clock = ContinuousClock(), started = clock.now
        _ = try await PathSeeding(corpus: corpus, logger: logger).seed(into: storage.store)
        for (projection, label) in [(server.approvedNetwork, "approved network"), (server.draftList, "draft list"), (server.reviewQueue, "review queue")] {
            let caughtUp = clock.now
            try await projection.catchUp()
            logger.info("\(name): \(label) read model caught up in \(clock.now - caughtUp)")
        }
        let notified = clock.now
        try await server.notifier.catchUp()
        logger.info("\(name): review outcomes notified in \(clock.now - notified)")
        let head = try await storage.store.headPosition()
        logger.info("\(name): seeding took \(clock.now - started) (\(head) events in the log)")
        try await vacuum(storage, name: name, logger: logger)
    }

    /// On PostgreSQL, `VACUUM (ANALYZE)` every table of the bench's schema once seeded, as pgbench vacuums before it
    /// measures: otherwise autovacuum wakes for the ~10⁶ fresh rows during the timed phases (on 2 cores it took bbox
    /// requests from ~7 ms to 50–120 ms while it ran), and the planner has no statistics for the new tables.
    private static func vacuum(_ storage: ServiceStorage, name: String, logger: Logger) async throws {
        guard let database = storage.postgres, case .postgres(_, let schema?) = storage.settings.backend else { return }
        let clock = ContinuousClock(), started = clock.now
        var tables: [String] = []
        for try await (table) in try await database.client.query("SELECT tablename FROM pg_tables WHERE schemaname = \(schema) ORDER BY tablename",
                                                                 logger: database.logger).decode(String.self) { tables.append(table) }
        for table in tables {
            try await database.client.query(PostgresQuery(unsafeSQL: "VACUUM (ANALYZE) \"\(schema)\".\"\(table)\""), logger: database.logger)
        }
        logger.info("\(name): VACUUM (ANALYZE) of \(tables.count) tables in \(clock.now - started)")
    }

    private static func timeBoxes(_ http: PathsHTTP, corpus: PathsCorpus, warmUp: Int, name: String, logger: Logger) async throws -> Latencies {
        var all = Latencies(resolution: 0.01)
        var byCity = corpus.cities.map { _ in Latencies(resolution: 0.01) }
        var features = corpus.cities.map { _ in 0 }, truncated = corpus.cities.map { _ in 0 }, bytes = 0
        // By how many paths the answer carried: what a box costs as the network under it grows.
        let sizes = [(0, 49), (50, 199), (200, 499), (500, 500)]
        var bySize = sizes.map { _ in Latencies(resolution: 0.01) }
        let clock = ContinuousClock()
        for (index, box) in corpus.boxes.enumerated() {
            let started = clock.now
            let body = try await http.get(box.query)
            let elapsed = clock.now - started
            guard index >= warmUp else { continue }
            all.record(elapsed)
            byCity[box.city].record(elapsed)
            bytes += body.count
            let page = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            let count = (page?["features"] as? [Any])?.count ?? 0
            features[box.city] += count
            if let size = sizes.firstIndex(where: { ($0.0...$0.1).contains(count) }) { bySize[size].record(elapsed) }
            if page?["truncated"] as? Bool == true { truncated[box.city] += 1 }
        }
        let timed = all.milliseconds.count
        logger.info("\(name): bbox \(all); answers \(bytes / max(timed, 1) / 1_024) KiB on average")
        for (index, city) in corpus.cities.enumerated() {
            let count = byCity[index].milliseconds.count
            logger.info("\(name):   \(city.name): \(byCity[index]); \(features[index] / max(count, 1)) paths per box on average, \(truncated[index]) of \(count) truncated at 500")
        }
        for (size, latencies) in zip(sizes, bySize) where !latencies.milliseconds.isEmpty {
            logger.info("\(name):   answers of \(size.0)–\(size.1) paths: \(latencies)")
        }
        return all
    }

    private static func timeSearches(_ http: PathsHTTP, corpus: PathsCorpus, warmUp: Int, name: String, logger: Logger) async throws -> Latencies {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+,#")
        var latencies = Latencies(resolution: 0.01)
        var empty = 0
        let clock = ContinuousClock()
        for (index, prefix) in corpus.prefixes.enumerated() {
            let path = "/v1/streets?q=" + prefix.addingPercentEncoding(withAllowedCharacters: allowed)!
            let started = clock.now
            let body = try await http.get(path)
            let elapsed = clock.now - started
            guard index >= warmUp else { continue }
            latencies.record(elapsed)
            if ((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["streets"] as? [Any])?.isEmpty ?? true { empty += 1 }
        }
        logger.info("\(name): street search \(latencies); \(empty) of \(latencies.milliseconds.count) prefixes found nothing")
        return latencies
    }

    private static func timeDrafts(_ http: PathsHTTP, corpus: PathsCorpus, count: Int, name: String, logger: Logger) async throws -> Latencies {
        let token = try await TokenForge.token(UUID())
        let warmUp = PathsBenchSettings.warmUp(count)
        var latencies = Latencies(resolution: 0.01)
        let clock = ContinuousClock()
        for index in 0..<(warmUp + count) {
            let body = corpus.manualDrafts[index % corpus.manualDrafts.count].body
            let started = clock.now
            _ = try await http.createDraft(body, token: token)
            if index >= warmUp { latencies.record(clock.now - started) }
        }
        logger.info("\(name): 20-piece manual draft, POST /v1/paths/drafts \(latencies)")
        return latencies
    }

    private static func timeApprovals(_ http: PathsHTTP, corpus: PathsCorpus, name: String, logger: Logger) async throws -> Latencies {
        let author = try await TokenForge.token(UUID()), moderator = try await TokenForge.token(UUID(), .moderator)
        var drafts: [String] = []
        for body in corpus.approvalDrafts {
            let id = try await http.createDraft(body, token: author)
            try await http.publish(id, token: author)
            try await http.claim(id, token: moderator)
            drafts.append(id)
        }
        let watcher = EmbeddedFeedWatcher(http: BenchHTTP(client: http.client, base: http.base), token: internalToken)
        var latencies = Latencies(resolution: 0.01)
        let clock = ContinuousClock()
        for id in drafts {
            let head = try await watcher.head()
            let started = clock.now
            async let seen: Void = watcher.waitFor("PathApproved", on: "path-draft-\(id.lowercased())", after: head)
            try await http.approve(id, token: moderator)
            try await seen
            latencies.record(clock.now - started)
        }
        logger.info("\(name): approve → PathApproved on the embedded feed \(latencies)")
        return latencies
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "waypoint.path-review")
        logger.logLevel = .critical
        return logger
    }
}
