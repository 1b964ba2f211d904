#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import Foundation
import ReferenceData
import ServiceTesting
import Testing
@testable import WaypointCLI

/// `docs/operations.md`, "Your own road network": an operator points the three bike services at their own extracts (here
/// Monaco as OSM XML and central Helsinki as PBF, loaded together through the shared `WAYPOINT_EXTRACTS`) and starts
/// the platform; the services route, find streets and match rides there, and a second start comes from the compiled
/// cache.
@Suite("waypoint up: an operator's own OpenStreetMap extracts", .serialized)
struct LauncherExtractsTests {
    @Test("XML and PBF extracts loaded together by every bike service; routes, streets and matching in both cities, none in Krems; the second start reads the cache",
          .timeLimit(.minutes(6)))
    func ownExtracts() async throws {
        let extracts = try ["monaco.osm.gz", "helsinki.osm.pbf"].map { try ReferenceDataDirectory.file($0).path }
        let binDirectory = try BuiltExecutable.url(named: "waypoint").deletingLastPathComponent()
        let directory = TemporaryDirectory("waypoint-up-extracts")
        defer { directory.remove() }
        let basePort = try LauncherIntegrationTests.freeBasePort()
        let arguments = ["up", "--no-build", "--bin-path", binDirectory.path, "--data-dir", directory.url.path, "--base-port", String(basePort),
                         "--only", "path-review,navigation,record-trip", "--log-format", "json", "--ready-timeout", "170", "--drain-timeout", "5"]
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WAYPOINT_") }
            .merging(["WAYPOINT_EXTRACTS": extracts.joined(separator: ",")]) { $1 }
        let (paths, navigation, trips) = ("http://127.0.0.1:\(basePort + 3)", "http://127.0.0.1:\(basePort + 4)", "http://127.0.0.1:\(basePort + 5)")

        for run in 1...2 {
            let output = OutputLog()
            let process = try ChildProcess(executable: binDirectory.appendingPathComponent("waypoint").path, arguments: arguments,
                                           environment: environment) { output.append($0) }
            defer { kill(process.pid, SIGKILL) }
            _ = try await LauncherIntegrationTests.waitFor("the bike services ready", output: output) { () -> Bool? in
                if process.exitStatus != nil { throw TestSetupError("the launcher exited: \(output.text.suffix(3_000))") }
                let state = try? LauncherState.read(from: LauncherState.fileURL(dataDirectory: directory.url))
                return state?.phase == .running ? true : nil
            }
            let loaded = output.text.split(separator: "\n").filter { $0.contains("road network loaded") }
            let exits = output.text.split(separator: "\n").filter { $0.contains("exited (") || $0.contains("\"level\":\"error\"") }
            #expect(loaded.count == 3, "each bike service loads its own copy:\n\(loaded.joined(separator: "\n"))\nexits and errors:\n\(exits.suffix(20).joined(separator: "\n"))")
            let source = run == 1 ? "imported" : #""source":"cache""#
            #expect(loaded.allSatisfy { $0.contains(source) }, "run \(run): \(loaded.joined(separator: "\n"))")

            let monaco = try await Self.get("\(navigation)/v1/routes?from=43.7314,7.4200&to=43.7393,7.4286&alternatives=2")
            #expect(monaco.status == 200 && (monaco.json["routes"] as? [Any])?.isEmpty == false, "a route in Monaco (XML)")
            let helsinki = try await Self.get("\(navigation)/v1/routes?from=60.1699,24.9384&to=60.1635,24.9480")
            let distance = (helsinki.json["routes"] as? [[String: Any]])?.first?["distance"] as? Double ?? 0
            #expect(helsinki.status == 200 && abs(distance - 1_115) < 60, "a route in Helsinki (PBF): \(distance) m")
            let krems = try await Self.get("\(navigation)/v1/routes?from=48.4093,15.6033&to=48.4102,15.6185")
            #expect(krems.status == 422 && krems.json["code"] as? String == "NoSegment", "Krems is not loaded any more")
            let streets = try await Self.get("\(paths)/v1/streets?q=mannerheimintie")
            #expect((streets.json["streets"] as? [[String: Any]])?.contains { $0["name"] as? String == "Mannerheimintie" } == true,
                    "path-review's streets come from the PBF")
            let casino = try await Self.get("\(paths)/v1/streets?near=43.7393,7.4286&radiusM=100")
            #expect((casino.json["streets"] as? [Any])?.isEmpty == false, "and from the XML")

            // record-trip matches a ride along the Helsinki route on the same network.
            let line = (helsinki.json["routes"] as? [[String: Any]])?.first?["geometry"] as? String ?? ""
            let fixes = try Self.fixes(alongPolyline6: line)
            var request = HTTPClientRequest(url: "\(trips)/v1/trips/preview")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(try JSONSerialization.data(withJSONObject: ["fixes": fixes, "acceleration": []]))
            let preview = try await Self.send(request)
            let matched = (preview.json["route"] as? [String: Any])?["lengthM"] as? Double ?? 0
            #expect(preview.status == 200 && abs(matched - distance) < 0.1 * distance, "matched \(matched) m of \(distance)")

            kill(process.pid, SIGINT)
            #expect(await process.waitForExit() == .exited(0))
        }
        for service in ["path-review", "navigation", "record-trip"] {
            #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("\(service)-roads/road-network.cache").path))
        }
    }

    /// One fix a second at 5 m/s along a polyline6 route.
    static func fixes(alongPolyline6 encoded: String) throws -> [[String: Any]] {
        RouteWalk.points(along: try RouteWalk.decode(encoded), every: 5).enumerated().map { second, point in
            ["time": 1_790_000_000 + Double(second), "lat": point.latitude, "lng": point.longitude, "accuracy": 5, "speed": 5]
        }
    }

    static func get(_ url: String) async throws -> (status: Int, json: [String: Any]) {
        try await send(HTTPClientRequest(url: url))
    }

    static func send(_ request: HTTPClientRequest) async throws -> (status: Int, json: [String: Any]) {
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        let json = (try? JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8))) as? [String: Any] ?? [:]
        return (Int(response.status.code), json)
    }
}
