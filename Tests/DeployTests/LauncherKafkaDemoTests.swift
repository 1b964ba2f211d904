#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import Foundation
import Kafka
import ServiceTesting
import Testing
@testable import WaypointCLI

/// `waypoint up --kafka … --demo` over librdkafka's mock cluster (real Kafka TCP on loopback), twice on one data
/// directory: the services run on Kafka, the demo is seeded once, and a second run keeps it as it was — on SQLite, and
/// on PostgreSQL (`--postgres`) when the test script started a server.
@Suite("waypoint up: Kafka transport and the demo data", .serialized)
struct LauncherKafkaDemoTests {
    /// The stores the services run on.
    enum Storage: String, CaseIterable, Sendable {
        case sqlite, postgres

        static var enabled: [Storage] { TestBackend.enabled.contains(.postgres) ? allCases : [.sqlite] }
    }

    @Test("--kafka runs every service on the broker; --demo publishes three tours once, and a restart with --demo adds none",
          .timeLimit(.minutes(5)), arguments: Storage.enabled)
    func kafkaAndDemo(storage: Storage) async throws {
        let cluster = try KafkaMockCluster()
        defer { cluster.shutdown() }
        for topic in ["waypoint.auth", "waypoint.tours", "waypoint.paths", "waypoint.navigation", "waypoint.trips", "waypoint.notifications"] {
            try cluster.createTopic(topic)
        }
        let binDirectory = try BuiltExecutable.url(named: "waypoint").deletingLastPathComponent()
        let directory = TemporaryDirectory("waypoint-up-kafka")
        defer { directory.remove() }
        let basePort = try LauncherIntegrationTests.freeBasePort()
        var arguments = ["up", "--no-build", "--bin-path", binDirectory.path, "--data-dir", directory.url.path, "--base-port", String(basePort),
                         "--kafka", cluster.bootstrapServers, "--demo", "--only", "auth,tour-management,analytics",
                         "--ready-timeout", "150", "--drain-timeout", "5"]
        let server = storage == .postgres
            ? try PostgresServer(url: TestBackend.postgresURL, databasePrefix: TestBackend.freshSchema("demo") + "_") : nil
        if let server { arguments += ["--postgres", server.url(database: server.maintenanceDatabase), "--postgres-prefix", server.databasePrefix] }
        let tours = "http://127.0.0.1:\(basePort + 2)/v1/tours?limit=50"

        let first = try await Self.run(arguments, binDirectory: binDirectory, until: "demo: 3 tours published, 0 already there")
        #expect(first.state.transport == "kafka" && first.state.kafkaBrokers == cluster.bootstrapServers)
        #expect(first.state.storage == storage.rawValue)
        #expect(first.output.contains("demo guide:     demo-guide@example.com / Waypoint-Guide-2026"))
        // Discovery is a projection of the tour log: the last publication shows up a moment after its 200.
        let listed = try await LauncherIntegrationTests.waitFor("three tours listed", output: first.log) { () -> [String]? in
            let titles = try await Self.tourTitles(tours)
            return titles.count >= DemoData.tours.count ? titles : nil
        }
        #expect(listed.sorted() == DemoData.tours.map(\.title).sorted())
        // The README's examples promise these answers on the demo data.
        let service = "http://127.0.0.1:\(basePort + 2)"
        let destinations = try await Self.json("\(service)/v1/destinations?prefix=monaco")
        let firstDestination = (destinations["destinations"] as? [[String: Any]])?.first
        #expect(firstDestination?["id"] as? Int == 2993458 && firstDestination?["name"] as? String == "Monaco")
        #expect(try await Self.tourTitles("\(service)/v1/tours?destinationId=2993458&themes=history&sort=rating")
            .contains("The Rock: Monaco-Ville in an hour"))
        #expect(try await Self.tourTitles("\(service)/v1/tours?near=48.41,15.61&radiusKm=5&q=steiner") == ["Krems old town: markets and churches"])
        try await first.stop()

        let second = try await Self.run(arguments, binDirectory: binDirectory, until: "demo: 0 tours published, 3 already there")
        #expect(second.output.contains("demo guide:     demo-guide@example.com"))
        #expect(try await Self.tourTitles(tours).count == 3, "the second --demo duplicated nothing")
        try await second.stop()
        if let server {
            #expect(second.output.contains("\(server.databasePrefix)tour_management (existing, PostGIS)"))
            let provisioner = PostgresProvisioner(server: server)
            #expect(try await provisioner.tables(in: server.databasePrefix + "tour_management").contains("es_events"), "the tours are in PostgreSQL")
            #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("tour-management.sqlite").path))
            try await provisioner.drop(["auth", "tour_management", "analytics"].map { server.databasePrefix + $0 })
        }
    }

    /// A running launcher, its state once running, and its output so far.
    struct Running {
        var process: ChildProcess
        var state: LauncherState
        var log: OutputLog
        var output: String { log.text }

        /// SIGINT, then expects exit status 0.
        func stop() async throws {
            kill(process.pid, SIGINT)
            let status = await process.waitForExit()
            #expect(status == .exited(0), "\(log.text.suffix(2_000))")
        }
    }

    static func run(_ arguments: [String], binDirectory: URL, until line: String) async throws -> Running {
        let log = OutputLog()
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WAYPOINT_") }
        let process = try ChildProcess(executable: binDirectory.appendingPathComponent("waypoint").path, arguments: arguments,
                                       environment: environment) { log.append($0) }
        let dataDirectory = URL(fileURLWithPath: arguments[arguments.firstIndex(of: "--data-dir")! + 1])
        do {
            let state = try await LauncherIntegrationTests.waitFor(line, output: log) { () -> LauncherState? in
                if process.exitStatus != nil { throw TestSetupError("the launcher exited: \(log.text.suffix(3_000))") }
                guard log.text.contains(line) else { return nil }
                return try? LauncherState.read(from: LauncherState.fileURL(dataDirectory: dataDirectory))
            }
            return Running(process: process, state: state, log: log)
        } catch {
            kill(process.pid, SIGKILL)
            throw error
        }
    }

    static func json(_ url: String) async throws -> [String: Any] {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 22)
        return (try JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any]) ?? [:]
    }

    static func tourTitles(_ url: String) async throws -> [String] {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 22)
        let json = try JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any]
        return (json?["tours"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }
}
