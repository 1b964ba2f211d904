import EventSourcing
import Foundation
import Geo
import HummingbirdTesting
import Logging
import Messaging
import ServiceKit
import ServiceTesting
import Testing
import TourManagement

@Suite("tour-management: destinations stored, imported on first start, and by the operator command")
struct TourManagementServerTests {
    static var quiet: Logger {
        var logger = Logger(label: "test.tour-management")
        logger.logLevel = .warning
        return logger
    }

    @Test("the destination store upserts by GeoNames id and loads back what it holds", arguments: TestBackend.enabled)
    func store(backend: TestBackend) async throws {
        try await backend.withServiceStorage("tour-management", logger: Self.quiet) { storage in
            let store = try await TourManagementStores.open(storage).destinations
            #expect(try await store.count() == 0)
            let krems = City(id: 2_773_300, name: "Krems an der Donau", country: "AT", coordinate: try Coordinate(latitude: 48.41, longitude: 15.61))
            let monaco = City(id: 2_993_458, name: "Monaco", country: "MC", coordinate: try Coordinate(latitude: 43.73, longitude: 7.42))
            #expect(try await store.upsert([krems, monaco]) == 2)
            var renamed = krems
            renamed.name = "Krems"
            _ = try await store.upsert([renamed])
            #expect(try await store.count() == 2)
            #expect(try await store.loadAll() == [monaco, renamed].sorted { $0.id < $1.id })
        }
    }

    @Test("first start imports the gazetteer and serves it; a restart keeps the table and does not import again")
    func firstStart() async throws {
        let directory = TemporaryDirectory("waypoint-tours")
        defer { directory.remove() }
        let configuration = TourManagementConfiguration(
            service: ServiceConfiguration(serviceName: "tour-management", port: 0, logLevel: .warning),
            runtime: try TestBackend.sqlite.runtime("tour-management", in: directory))
        for round in 0..<2 {
            try await ServiceStorage.withOpen(configuration.runtime, logger: Self.quiet) { storage in
                let server = try await TourManagementServer.assemble(configuration, storage: storage, logger: Self.quiet)
                #expect(server.index.cities.count == 209_575, "round \(round)")
                #expect(try await server.destinations.count() == 209_575)
                let app = try server.application(metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [:]), logger: Self.quiet)
                try await app.test(.router) { client in
                    let reply = try await client.execute(uri: "/v1/destinations?prefix=krems", method: .get)
                    #expect(reply.status == .ok)
                    #expect(String(buffer: reply.body).contains("Krems an der Donau"))
                    let openapi = try await client.execute(uri: "/openapi.yaml", method: .get)
                    #expect(String(buffer: openapi.body).hasPrefix("openapi: 3.1."))
                }
            }
        }
    }

    @Test("`tour-management import-destinations --file` upserts a gazetteer file into the table")
    func importCommand() throws {
        let directory = TemporaryDirectory("waypoint-tours")
        defer { directory.remove() }
        let json = #"[{"_id":1,"name":"Testville","country":"AT","coord":{"lon":15.6,"lat":48.4}},{"_id":2,"name":"","country":"","coord":{"lon":0,"lat":0}}]"#
        let plain = directory.url.appendingPathComponent("mini.json")
        try Data(json.utf8).write(to: plain)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = [plain.path]
        try gzip.run()
        gzip.waitUntilExit()
        let process = Process()
        process.executableURL = try BuiltExecutable.url(named: "tour-management")
        process.arguments = ["import-destinations", "--file", plain.path + ".gz"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WAYPOINT_") }
        environment["WAYPOINT_DATA_DIR"] = directory.url.path
        environment["WAYPOINT_LOG_LEVEL"] = "warning"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("imported 1 destinations (1 entries"))
    }
}
