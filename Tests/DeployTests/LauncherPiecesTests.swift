import Foundation
import Testing
@testable import WaypointCLI

@Suite("waypoint up: back-off, log prefixes, state file and secrets")
struct LauncherPiecesTests {
    @Test("restart delays double from 1 s to at most 30 s")
    func backoffDoubles() {
        let backoff = RestartBackoff()
        #expect((1...7).map { backoff.delay(consecutiveCrashes: $0) } == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
        #expect(backoff.delay(consecutiveCrashes: 1_000) == .seconds(30))
    }

    @Test("a crash after 60 s ready starts a new series; a crash before ready, or sooner, continues the series")
    func backoffResets() {
        let backoff = RestartBackoff()
        #expect(backoff.consecutiveCrashes(previous: 5, readyFor: .seconds(60)) == 1)
        #expect(backoff.consecutiveCrashes(previous: 5, readyFor: .seconds(59)) == 6)
        #expect(backoff.consecutiveCrashes(previous: 5, readyFor: nil) == 6)
        #expect(backoff.consecutiveCrashes(previous: 0, readyFor: nil) == 1)
    }

    @Test("every line gets the padded name; lines split across reads are joined; CR LF and a last line without newline are handled")
    func prefixes() {
        var prefixer = LinePrefixer(name: "auth", width: 8)
        #expect(prefixer.feed(Array("one\ntw".utf8)) == Array("auth     | one\n".utf8))
        #expect(prefixer.feed(Array("o\r\nthree\n\n".utf8)) == Array("auth     | two\nauth     | three\nauth     | \n".utf8))
        #expect(prefixer.feed(Array("tail".utf8)).isEmpty)
        #expect(prefixer.finish() == Array("auth     | tail\n".utf8))
        #expect(prefixer.finish().isEmpty)
    }

    @Test("a line longer than the limit is written in pieces instead of growing without bound")
    func longLine() {
        var prefixer = LinePrefixer(name: "x")
        let output = prefixer.feed([UInt8](repeating: UInt8(ascii: "a"), count: LinePrefixer.maximumLineBytes * 2 + 10))
        #expect(output.filter { $0 == UInt8(ascii: "\n") }.count == 2)
        #expect(prefixer.finish().count == "x | ".count + 10 + 1)
    }

    @Test("the state file is written atomically and reads back equal")
    func stateFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-state-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = LauncherState.fileURL(dataDirectory: directory)
        #expect(url.path.hasSuffix("/run/launcher.json"))
        let state = LauncherState(
            launcherPid: 42, phase: .running, gatewayURL: "http://127.0.0.1:8080", dataDirectory: directory.path, transport: "embedded",
            kafkaBrokers: nil, startedAt: Date(timeIntervalSince1970: 1_700_000_000), updatedAt: Date(timeIntervalSince1970: 1_700_000_001),
            services: [LauncherState.Service(name: "auth", port: 8081, url: "http://127.0.0.1:8081", executable: "auth", pid: 7,
                                             state: .ready, restarts: 1, lastExit: "signal 9 (SIGKILL)",
                                             readyAt: Date(timeIntervalSince1970: 1_700_000_000))])
        try state.write(to: url)
        try state.write(to: url)
        #expect(try LauncherState.read(from: url) == state)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["launcher.json"])
        let json = try String(contentsOf: url, encoding: .utf8)
        #expect(json.contains("\"state\" : \"ready\"") && json.contains("\"url\" : \"http://127.0.0.1:8081\""))
    }

    @Test("secrets are generated once (file mode 0600) and the same ones come back on the next start; the environment wins")
    func secrets() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-secrets-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try LauncherSecrets.loadOrCreate(in: directory, environment: [:])
        #expect(first.internalToken.count >= 43)
        #expect(Data(base64Encoded: try #require(first.personalDataKey))?.count == 32)
        let file = directory.appendingPathComponent(LauncherSecrets.fileName)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(try LauncherSecrets.loadOrCreate(in: directory, environment: [:]) == first)
        let overridden = try LauncherSecrets.loadOrCreate(in: directory, environment: ["WAYPOINT_INTERNAL_TOKEN": "from-the-operator-1234"])
        #expect(overridden.internalToken == "from-the-operator-1234" && overridden.personalDataKey == first.personalDataKey)
        #expect(try LauncherSecrets.loadOrCreate(in: directory, environment: [:]) == first, "an override is not stored")
    }

    @Test("a data directory whose services ran before the launcher keeps personal-data keys unwrapped")
    func existingDataDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-secrets-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: directory.appendingPathComponent("auth.sqlite").path, contents: Data())
        let secrets = try LauncherSecrets.loadOrCreate(in: directory, environment: [:])
        #expect(secrets.personalDataKey == nil)
    }

    @Test("exit statuses read as a person would say them")
    func exitStatus() {
        #expect(ExitStatus(waitStatus: 1 << 8).description == "exit status 1")
        #expect(ExitStatus(waitStatus: 9).description == "signal 9 (SIGKILL)")
        #expect(ExitStatus(waitStatus: 0) == .exited(0))
    }

    @Test("a status line names the service, pid, port and state")
    func statusLine() {
        let ready = LauncherState.Service(name: "analytics", port: 8086, url: "", executable: "analytics", pid: 123, state: .ready)
        #expect(StatusBoard.statusLine(ready).contains("analytics") && StatusBoard.statusLine(ready).contains("pid 123"))
        #expect(StatusBoard.statusLine(ready).hasSuffix("port 8086  ready"))
        let missing = LauncherState.Service(name: "navigation", port: 8084, url: "", executable: nil, state: .notBuilt)
        #expect(StatusBoard.statusLine(missing).hasSuffix("not built in this version"))
    }
}
