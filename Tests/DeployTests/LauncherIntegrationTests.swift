#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import Foundation
import ServiceTesting
import Synchronization
import Testing
@testable import WaypointCLI

/// Runs the real `waypoint up` over the built service executables, on loopback, in a temporary data directory.
@Suite("waypoint up: the launcher over the real executables", .serialized)
struct LauncherIntegrationTests {
    @Test("starts every built service, restarts one killed with SIGKILL, and on SIGINT stops all and exits 0 with no child left",
          .timeLimit(.minutes(5)))
    func launcherSupervisesTheServices() async throws {
        let binDirectory = try BuiltExecutable.url(named: "waypoint").deletingLastPathComponent()
        let directory = TemporaryDirectory("waypoint-up")
        defer { directory.remove() }
        let basePort = try Self.freeBasePort()
        let withGateway = Self.gatewayIsReal(in: binDirectory)
        var arguments = ["up", "--no-build", "--bin-path", binDirectory.path, "--data-dir", directory.url.path,
                         "--base-port", String(basePort), "--log-format", "json", "--ready-timeout", "150", "--drain-timeout", "5"]
        if !withGateway { arguments += ["--only", "auth,tour-management,analytics"] }
        let output = OutputLog()
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WAYPOINT_") }
        let launcher = try ChildProcess(executable: binDirectory.appendingPathComponent("waypoint").path, arguments: arguments,
                                        environment: environment) { output.append($0) }
        var cleanup = true
        defer { if cleanup { Glibc.kill(launcher.pid, SIGKILL) } }
        let stateFile = LauncherState.fileURL(dataDirectory: directory.url)
        let expected = ["auth", "tour-management", "path-review", "navigation", "record-trip", "analytics"] + (withGateway ? ["gateway"] : [])

        let running = try await Self.waitFor("every service ready", output: output) { () -> LauncherState? in
            guard let state = try? LauncherState.read(from: stateFile), state.phase == .running else { return nil }
            return state
        }
        for name in expected {
            let service = try #require(running.service(name))
            #expect(service.state == .ready && service.pid != nil, "\(name)")
            #expect(service.port == basePort + ServiceCatalog.named(name)!.portOffset)
            #expect(await ReadinessProbe().isReady(service.url), "\(name) answers /health/ready with 200")
            #expect(output.text.contains("\n\(name.padding(toLength: 15, withPad: " ", startingAt: 0)) | {"),
                    "\(name)'s JSON log lines carry its prefix")
        }
        #expect(!output.text.contains("not built in this version"), "every service of DESIGN's card is built")

        let killedPid = try #require(running.service("analytics")?.pid)
        #expect(Glibc.kill(killedPid, SIGKILL) == 0)
        let restarted = try await Self.waitFor("analytics restarted", output: output) { () -> LauncherState.Service? in
            guard let analytics = (try? LauncherState.read(from: stateFile))?.service("analytics"),
                  analytics.state == .ready, let pid = analytics.pid, pid != killedPid else { return nil }
            return analytics
        }
        #expect(restarted.restarts == 1 && restarted.lastExit == "signal 9 (SIGKILL)")
        #expect(await ReadinessProbe().isReady(restarted.url))
        #expect(output.text.contains("analytics exited (signal 9 (SIGKILL)); restarting in 1 s"))

        let children = (try LauncherState.read(from: stateFile)).services.compactMap(\.pid) + [killedPid]
        #expect(Glibc.kill(launcher.pid, SIGINT) == 0)
        let status = await launcher.waitForExit()
        cleanup = false
        #expect(status == .exited(0), "\(output.text.suffix(2_000))")
        for pid in children {
            #expect(Glibc.kill(pid, 0) != 0, "child \(pid) survived the launcher")
        }
        let final = try LauncherState.read(from: stateFile)
        #expect(final.phase == .stopped)
        #expect(final.services.allSatisfy { $0.pid == nil })
        #expect(output.text.contains("waypoint        | stopped"))
    }

    @Test("a launcher killed with SIGKILL leaves its services behind; the next one on that data directory stops them first, refuses to run beside a live one, and stops on SIGTERM",
          .timeLimit(.minutes(3)))
    func orphansOfAKilledLauncher() async throws {
        let binDirectory = try BuiltExecutable.url(named: "waypoint").deletingLastPathComponent()
        let directory = TemporaryDirectory("waypoint-up-orphans")
        defer { directory.remove() }
        let basePort = try Self.freeBasePort()
        let arguments = ["up", "--no-build", "--bin-path", binDirectory.path, "--data-dir", directory.url.path,
                         "--base-port", String(basePort), "--only", "auth", "--drain-timeout", "5"]
        let stateFile = LauncherState.fileURL(dataDirectory: directory.url)
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WAYPOINT_") }
        let waypoint = binDirectory.appendingPathComponent("waypoint").path

        let firstOutput = OutputLog()
        let first = try ChildProcess(executable: waypoint, arguments: arguments, environment: environment) { firstOutput.append($0) }
        let orphan = try await Self.waitFor("auth ready", output: firstOutput) { () -> Int32? in
            guard let state = try? LauncherState.read(from: stateFile), state.phase == .running else { return nil }
            return state.service("auth")?.pid
        }
        let refusedOutput = OutputLog()
        let refused = try ChildProcess(executable: waypoint, arguments: arguments, environment: environment) { refusedOutput.append($0) }
        #expect(await refused.waitForExit() == .exited(1))
        #expect(refusedOutput.text.contains("another launcher (pid \(first.pid)) runs on"))

        Glibc.kill(first.pid, SIGKILL)
        _ = await first.waitForExit()
        #expect(Glibc.kill(orphan, 0) == 0, "SIGKILL of the launcher leaves auth running")

        let secondOutput = OutputLog()
        let second = try ChildProcess(executable: waypoint, arguments: arguments, environment: environment) { secondOutput.append($0) }
        defer { Glibc.kill(second.pid, SIGKILL) }
        let restarted = try await Self.waitFor("auth ready under the new launcher", output: secondOutput) { () -> Int32? in
            guard let state = try? LauncherState.read(from: stateFile), state.phase == .running, state.launcherPid == second.pid
            else { return nil }
            return state.service("auth")?.pid
        }
        #expect(restarted != orphan)
        #expect(secondOutput.text.contains("stopping what a previous launcher left running: auth (pid \(orphan))"))
        #expect(Glibc.kill(orphan, 0) != 0, "the orphan is gone")
        Glibc.kill(second.pid, SIGTERM)
        #expect(await second.waitForExit() == .exited(0), "SIGTERM stops the platform like Ctrl-C")
        #expect(Glibc.kill(restarted, 0) != 0)
    }

    /// A base port whose seven ports are free now.
    static func freeBasePort() throws -> Int {
        for _ in 0..<50 {
            // Below the ephemeral range (32768–60999 here): a port chosen there may be taken by an outgoing connection of
            // a test running beside it before the service binds it (path-review then restarts until the port is free).
            let base = Int.random(in: 20_000...32_000)
            if (0..<7).allSatisfy({ StartupChecks.isPortFree(base + $0) }) { return base }
        }
        throw TestSetupError("no seven consecutive free ports found")
    }

    /// Whether the gateway executable is the real service (an argument parser answering `--help`) rather than the
    /// scaffold that prints its name and exits.
    static func gatewayIsReal(in binDirectory: URL) -> Bool {
        let path = binDirectory.appendingPathComponent("gateway").path
        guard FileManager.default.isExecutableFile(atPath: path) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        guard (try? process.run()) != nil else { return false }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 && String(decoding: data, as: UTF8.self).contains("USAGE")
    }

    /// Polls `condition` every 100 ms for up to three minutes.
    static func waitFor<T>(_ what: String, output: OutputLog, _ condition: () async throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            if let value = try await condition() { return value }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSetupError("timed out waiting for \(what); launcher output:\n\(output.text.suffix(4_000))")
    }
}

/// The launcher's output as it arrives.
final class OutputLog: Sendable {
    private let bytes = Mutex<[UInt8]>([])
    func append(_ chunk: ArraySlice<UInt8>?) { if let chunk { bytes.withLock { $0 += chunk } } }
    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
}
