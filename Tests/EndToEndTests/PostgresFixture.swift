import Foundation
import ServiceTesting
import Testing
@testable import WaypointCLI

/// The PostgreSQL side of the journey on the production stores: a login role of its own on the test script's server
/// (a superuser, so that the launcher installs PostGIS as an operator's administrator would), whose password appears
/// nowhere but in the `--postgres` URL, and a database prefix of its own, so that runs never share databases.
struct PostgresFixture: Sendable {
    let server: PostgresServer
    let role: String
    let password: String
    private let admin: PostgresProvisioner

    init() async throws {
        let admin = PostgresProvisioner(server: try PostgresServer(url: TestBackend.postgresURL))
        let role = TestBackend.freshSchema("e2e"), password = "e2e-\(UUID().uuidString)"
        try await admin.execute(["CREATE ROLE \(role) LOGIN SUPERUSER PASSWORD '\(password)'"])
        var components = admin.server.components
        components.user = role
        components.password = password
        server = try PostgresServer(url: try #require(components.string), databasePrefix: role + "_")
        self.role = role
        self.password = password
        self.admin = admin
    }

    /// The services' databases, by service.
    var databases: [String: String] {
        ["auth": server.databasePrefix + "auth", "tour-management": server.databasePrefix + "tour_management",
         "path-review": server.databasePrefix + "path_review", "navigation": server.databasePrefix + "navigation",
         "record-trip": server.databasePrefix + "record_trip", "analytics": server.databasePrefix + "analytics"]
    }

    /// After the journey: the services really ran on PostgreSQL (their logs and read models are tables in their own
    /// databases, no SQLite file was made), the launcher's state names the databases, and neither the state file nor any
    /// line the launcher and the services printed holds the password. Then drops the databases and the role.
    func verifyAndDrop(_ platform: Platform) async throws {
        let state = try platform.state()
        #expect(state.storage == "postgres")
        #expect(state.postgres?.databases == databases)
        #expect(state.postgres?.server == "postgres://\(role):***@\(server.host):\(server.port)")
        #expect(try !String(contentsOf: platform.stateFile, encoding: .utf8).contains(password), "launcher.json holds no password")
        let log = platform.log.text
        #expect(log.contains("PostgreSQL at postgres://\(role):***@") && log.contains("\(server.databasePrefix)tour_management (created, PostGIS)"))
        #expect(!log.contains(password), "no line of the launcher or a service shows the password")
        let files = try FileManager.default.contentsOfDirectory(atPath: platform.dataDirectory.path)
        #expect(!files.contains { $0.hasSuffix(".sqlite") }, "no SQLite store: \(files)")
        for (service, database) in databases.sorted(by: { $0.key < $1.key }) {
            let tables = try await admin.tables(in: database)
            #expect(tables.contains("es_events"), "\(service) keeps its event log in \(database): \(tables)")
        }
        let tours = try await admin.tables(in: server.databasePrefix + "tour_management")
        #expect(tours.contains { $0.contains("tour_search") }, "discovery's PostGIS read model: \(tours)")
        try await admin.drop(Array(databases.values))
        try await admin.execute(["DROP ROLE \(role)"])
    }
}
