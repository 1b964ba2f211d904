#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ServiceTesting
import Testing
@testable import WaypointCLI

/// `waypoint up --postgres URL` before any service starts: the service databases on the test script's throwaway server
/// (each test with its own database prefix and roles), and the launcher's errors when the server or the role falls short.
@Suite("waypoint up --postgres: the service databases and the errors before start")
struct LauncherPostgresTests {
    static let services = ["auth", "tour-management", "analytics", "gateway"]

    /// The test server as its superuser, with a fresh database prefix.
    static func superuser() throws -> PostgresServer {
        try PostgresServer(url: TestBackend.postgresURL, databasePrefix: TestBackend.freshSchema("lp") + "_")
    }

    /// What the launcher would prepare on `server` for the four built services.
    static func databases(on server: PostgresServer) -> [(service: ServiceDefinition, database: String)] {
        LaunchPlan(.init(dataDirectory: URL(fileURLWithPath: "/tmp"), postgres: server, internalToken: "-", available: Set(services)))
            .postgresDatabases.map { ($0.entry.definition, $0.database) }
    }

    @Test("creates each started service's database once (not the gateway's), PostGIS where the service needs it, and knows a used one again",
          .enabled(if: TestBackend.enabled.contains(.postgres)))
    func createsTheDatabases() async throws {
        let server = try Self.superuser()
        let provisioner = PostgresProvisioner(server: server)
        let databases = Self.databases(on: server)
        #expect(databases.map(\.database) == ["auth", "tour_management", "analytics"].map { server.databasePrefix + $0 })
        do {
            let first = try await provisioner.prepare(databases)
            #expect(first.map(\.service) == ["auth", "tour-management", "analytics"])
            #expect(first.allSatisfy { $0.created && !$0.heldEventLog })
            #expect(first.map(\.postgis) == [false, true, false])
            // A service ran on auth's database: its event log is there.
            try await provisioner.execute(["CREATE TABLE es_events (global_position bigint)"], in: databases[0].database)
            let second = try await provisioner.prepare(databases)
            #expect(second.allSatisfy { !$0.created }, "existing databases are used as they are")
            #expect(second.map(\.postgis) == [false, true, false])
            #expect(second.map(\.heldEventLog) == [true, false, false])
            #expect(try await provisioner.tables(in: databases[0].database) == ["es_events"])
        } catch {
            try? await provisioner.drop(databases.map(\.database))
            throw error
        }
        try await provisioner.drop(databases.map(\.database))
    }

    @Test("a wrong password, a role without CREATEDB, a role that may not install PostGIS: each a clear error, the password never in it",
          .enabled(if: TestBackend.enabled.contains(.postgres)))
    func rolesThatFallShort() async throws {
        let admin = try Self.superuser()
        let adminProvisioner = PostgresProvisioner(server: admin)
        let role = TestBackend.freshSchema("lp_role"), password = "pw-\(UUID().uuidString)"
        try await adminProvisioner.execute(["CREATE ROLE \(role) LOGIN PASSWORD '\(password)'"])
        var components = admin.components
        components.user = role
        components.password = password
        let limited = try PostgresServer(url: components.string!, databasePrefix: admin.databasePrefix)
        let databases = Self.databases(on: limited)
        do {
            components.password = "not-\(password)"
            let wrong = try PostgresServer(url: components.string!, databasePrefix: admin.databasePrefix)
            let refused = await #expect(throws: LauncherError.self) { try await PostgresProvisioner(server: wrong).prepare(databases) }
            #expect(refused?.description.contains("password authentication failed for user \"\(role)\"") == true, "\(refused.map(String.init(describing:)) ?? "")")
            #expect(refused?.description.contains(password) == false)

            let noCreate = await #expect(throws: LauncherError.self) { try await PostgresProvisioner(server: limited).prepare(databases) }
            let text = noCreate?.description ?? ""
            #expect(text.contains("role \(role) may not create databases") && text.contains("ALTER ROLE \(role) CREATEDB"), "\(text)")
            #expect(text.contains("\(admin.databasePrefix)auth, \(admin.databasePrefix)tour_management, \(admin.databasePrefix)analytics"))
            #expect(text.contains("CREATE EXTENSION postgis in \(admin.databasePrefix)tour_management"))
            #expect(!text.contains(password) && text.contains("\(role):***@"), "the URL shows redacted")

            try await adminProvisioner.execute(["ALTER ROLE \(role) CREATEDB"])
            let noPostGIS = await #expect(throws: LauncherError.self) { try await PostgresProvisioner(server: limited).prepare(databases) }
            let postgisText = noPostGIS?.description ?? ""
            #expect(postgisText.contains("tour-management needs PostGIS in \(admin.databasePrefix)tour_management, and role \(role) may not install it")
                    && postgisText.contains("a superuser must run CREATE EXTENSION postgis"), "\(postgisText)")
            #expect(!postgisText.contains(password))

            // Once an administrator installed PostGIS, the same role goes through.
            try await adminProvisioner.execute(["CREATE EXTENSION postgis"], in: "\(admin.databasePrefix)tour_management")
            let prepared = try await PostgresProvisioner(server: limited).prepare(databases)
            #expect(prepared.map(\.postgis) == [false, true, false] && prepared.allSatisfy { !$0.created })
        } catch {
            try? await adminProvisioner.drop(databases.map(\.database))
            try? await adminProvisioner.execute(["DROP ROLE IF EXISTS \(role)"])
            throw error
        }
        try await adminProvisioner.drop(databases.map(\.database))
        try await adminProvisioner.execute(["DROP ROLE IF EXISTS \(role)"])
    }

    @Test("an unreachable server: waypoint up exits 1 with the reason on standard error and starts nothing; a malformed URL is refused; the password is printed nowhere")
    func unreachableServer() throws {
        let binDirectory = try BuiltExecutable.url(named: "waypoint").deletingLastPathComponent()
        let directory = TemporaryDirectory("waypoint-up-postgres")
        defer { directory.remove() }
        let closedPort = try #require((0..<50).lazy.map { _ in Int.random(in: 40_000...60_000) }.first { StartupChecks.isPortFree($0) })
        let basePort = try LauncherIntegrationTests.freeBasePort()
        let password = "pw-\(UUID().uuidString)"
        let common = ["up", "--no-build", "--bin-path", binDirectory.path, "--data-dir", directory.url.path, "--base-port", String(basePort)]

        let unreachable = try Self.run(binDirectory, common + ["--postgres", "postgres://wp:\(password)@127.0.0.1:\(closedPort)/postgres"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("error: cannot connect to PostgreSQL at postgres://wp:***@127.0.0.1:\(closedPort) (database postgres)"),
                "\(unreachable.stderr)")
        #expect(!unreachable.stdout.contains(password) && !unreachable.stderr.contains(password))
        #expect(!FileManager.default.fileExists(atPath: LauncherState.fileURL(dataDirectory: directory.url).path), "nothing started")

        let malformed = try Self.run(binDirectory, common + ["--postgres", "postgres://wp:\(password)@/x"])
        #expect(malformed.status == 64 && malformed.stderr.contains("--postgres: expected postgres://user:password@host"), "\(malformed.stderr)")
        #expect(!malformed.stdout.contains(password) && !malformed.stderr.contains(password))
        let prefixAlone = try Self.run(binDirectory, common + ["--postgres-prefix", "demo_"])
        #expect(prefixAlone.status == 64 && prefixAlone.stderr.contains("--postgres-prefix needs --postgres"))
    }

    /// Runs `waypoint` to its end with stdout and stderr apart.
    static func run(_ binDirectory: URL, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = binDirectory.appendingPathComponent("waypoint")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WAYPOINT_") && $0.key != "PGPASSWORD" }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // stderr is small; read stdout to its end first, then stderr (both close when the process exits).
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}
