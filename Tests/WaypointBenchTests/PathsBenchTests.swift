import Foundation
import Logging
import ReferenceData
import Testing
@testable import WaypointBench

/// `waypoint-bench paths` end to end at toy sizes on SQLite: the real service over the three cities, seeded, measured
/// through HTTP; the JSON line has every key of issue 20's spec and plausible figures.
@Suite("The paths benchmark", .serialized)
struct PathsBenchTests {
    @Test("a small run prints every figure of the spec with sane latencies")
    func smallRun() async throws {
        let directory = try #require(ReferenceDataDirectory.locate(), "reference data (../shared/data) not found")
        let settings = PathsBenchSettings(dataDirectory: directory, paths: 50, reports: 100, boxes: 20, searches: 30, drafts: 5, approvals: 3,
                                          seed: 7)
        var logger = Logger(label: "paths-bench-test")
        logger.logLevel = .warning
        let figures = try await PathServiceBench.measure(settings, postgresURL: nil, logger: logger)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try #require(try JSONSerialization.jsonObject(with: encoder.encode(figures)) as? [String: Any])
        #expect(Set(json.keys) == ["sqlite", "postgres", "street_search_ms", "draft_validate_ms", "approve_to_event_ms"])
        #expect(json["postgres"] is NSNull)
        let sqlite = try #require(json["sqlite"] as? [String: Any])
        #expect(Set(sqlite.keys) == ["bbox_ms"])
        for figure in [sqlite["bbox_ms"], json["street_search_ms"], json["draft_validate_ms"], json["approve_to_event_ms"]] {
            let keys = (figure as? [String: Any]).map { Set($0.keys) }
            #expect(keys == ["p50", "p99"])
        }
        let line = try JSONDecoder().decode(Line.self, from: encoder.encode(figures))
        for figure in [line.sqlite.bbox_ms, line.street_search_ms, line.draft_validate_ms, line.approve_to_event_ms] {
            #expect(figure.p50 > 0 && figure.p50 <= figure.p99 && figure.p99 < 10_000, "\(figure)")
        }
        #expect(figures.sqlite?.bboxMilliseconds.milliseconds.count == 20)
        #expect(figures.streetSearchMilliseconds.milliseconds.count == 30)
        #expect(figures.draftValidateMilliseconds.milliseconds.count == 5)
        #expect(figures.approveToEventMilliseconds.milliseconds.count == 3)
    }

    @Test("the corpus puts every seeded path's events through the aggregate: approved, with its reports clustered")
    func seededEvents() throws {
        let directory = try #require(ReferenceDataDirectory.locate(), "reference data (../shared/data) not found")
        let settings = PathsBenchSettings(dataDirectory: directory, paths: 20, reports: 200, boxes: 5, searches: 5, drafts: 1, approvals: 1, seed: 3)
        let logger = Logger(label: "paths-bench-test") { _ in SwiftLogNoOpLogHandler() }
        let roads = try PathServiceBench.loadRoads(directory, logger: logger)
        let corpus = try PathsCorpus.make(settings, roads: roads, logger: logger)
        #expect(corpus.paths.count == 20 && corpus.reports.map(\.count).reduce(0, +) == 200)
        #expect(corpus.paths.allSatisfy { PathsCorpus.pathLength.contains($0.content.route.lengthMetres) })
        #expect(corpus.manualDrafts.count == 1 && corpus.manualDrafts.allSatisfy { $0.pieces.count == PathsCorpus.manualPieces })
        var confirmations = 0, reported = 0, approvals = 0
        for (path, reports) in zip(corpus.paths, corpus.reports) {
            let events = try PathSeeding.events(of: path, reports: reports)
            approvals += events.filter { $0.eventType == "PathApproved" }.count
            reported += events.filter { $0.eventType == "PathObstacleReported" }.count
            confirmations += events.filter { $0.eventType == "PathObstacleConfirmed" }.count
        }
        #expect(approvals == 20 && reported == 200)
        #expect(confirmations >= reported)
    }

    @Test("--backends takes sqlite, postgres or both; postgres alone without a URL measures nothing and says so")
    func backends() async throws {
        #expect(try PathsBench.parse(["--backends", "postgres"]).settings.backends == ["postgres"])
        #expect(try PathsBench.parse([]).settings.backends == ["sqlite", "postgres"])
        #expect(throws: (any Error).self) { try PathsBench.parse(["--backends", "mysql"]) }
        #expect(throws: (any Error).self) { try PathsBench.parse(["--backends", ""]) }
        #expect(try PathsBench.parse(["--feature-cache-mb", "0"]).settings.featureCacheMegabytes == 0)
        #expect(try PathsBench.parse([]).settings.featureCacheMegabytes == 64)
        #expect(throws: (any Error).self) { try PathsBench.parse(["--feature-cache-mb", "-1"]) }
        let directory = try #require(ReferenceDataDirectory.locate(), "reference data (../shared/data) not found")
        var settings = PathsBenchSettings(dataDirectory: directory, paths: 5, reports: 0, boxes: 5, searches: 5, drafts: 1, approvals: 1, seed: 3)
        settings.backends = ["postgres"]
        let logger = Logger(label: "paths-bench-test") { _ in SwiftLogNoOpLogHandler() }
        await #expect(throws: PathsBenchError.self) { try await PathServiceBench.measure(settings, postgresURL: nil, logger: logger) }
    }

    /// The JSON line's figures, read back.
    struct Figure: Decodable { var p50: Double; var p99: Double }
    struct Backend: Decodable { var bbox_ms: Figure }
    struct Line: Decodable {
        var sqlite: Backend
        var street_search_ms: Figure, draft_validate_ms: Figure, approve_to_event_ms: Figure
    }
}
