#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging

/// The platform as `waypoint up` runs it, started by the benchmark: the real launcher with `--no-build --bin-path`,
/// `--demo`, on loopback ports from a free base port, over a data directory the benchmark prepared. Its console (and
/// every service's log lines, which it prefixes) goes to `<data dir>/launcher.log`.
///
/// `@unchecked Sendable`: every stored property is a constant, and the interruption guard stops the platform from
/// another task only while the run's own task no longer does (it cleared the guard's cleanup before its own stop).
final class LaunchedPlatform: @unchecked Sendable {
    /// What the launcher's state file (`<data dir>/run/launcher.json`) says; only the keys the benchmark reads.
    struct State: Decodable, Sendable {
        struct Service: Decodable, Sendable {
            var name: String
            var url: String
            var pid: Int32?
            var state: String
        }

        var launcherPid: Int32
        var phase: String
        var gatewayURL: String
        var services: [Service]

        func service(_ name: String) -> Service? { services.first { $0.name == name } }
    }

    /// Executables the benchmark needs in the bin directory: the tours mix's; the bike mix adds the bike services.
    static let executables = ["waypoint", "auth", "tour-management", "analytics", "gateway"]
    static let bikeExecutables = ["path-review", "navigation", "record-trip"]

    /// The secrets `waypoint up` would generate (`LauncherSecrets`), made by the benchmark so that what it writes before
    /// the start (`auth create-admin`) uses the keys the services will use. The launcher takes them from its
    /// environment, where they win over its secrets file.
    struct Secrets: Sendable {
        /// `WAYPOINT_PERSONAL_DATA_KEY`: base64 of 32 random bytes.
        var personalDataKey: String
        /// `WAYPOINT_INTERNAL_TOKEN`: base64url of 32 random bytes.
        var internalToken: String

        static func random() -> Secrets {
            func bytes() -> Data { Data((0..<32).map { _ in UInt8.random(in: .min ... .max) }) }
            let token = bytes().base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            return Secrets(personalDataKey: bytes().base64EncodedString(), internalToken: token)
        }

        var environment: [String: String] {
            ["WAYPOINT_PERSONAL_DATA_KEY": personalDataKey, "WAYPOINT_INTERNAL_TOKEN": internalToken]
        }
    }
    /// The launcher's console line that ends the demo seeding (`DemoSeeder.Outcome.summary`: "demo: 3 tours published,
    /// 0 already there"), and the one of its failure.
    static func isDemoSeeded(_ line: Substring) -> Bool { line.contains("demo: ") && line.contains("tours published") }
    static let demoFailed = "demo data not seeded"

    let dataDirectory: URL
    let logFile: URL
    private let process: Process

    private init(dataDirectory: URL, logFile: URL, process: Process) {
        self.dataDirectory = dataDirectory
        self.logFile = logFile
        self.process = process
    }

    /// Starts `waypoint up` from `binDirectory` on `dataDirectory` with ports from `basePort`, `secrets` and `settings`
    /// (`WAYPOINT_*` keys the services read, over the benchmark's own environment) in its environment.
    static func start(binDirectory: URL, dataDirectory: URL, basePort: Int, readyTimeoutSeconds: Int, secrets: Secrets,
                      settings: [String: String] = [:]) throws -> LaunchedPlatform {
        let logFile = dataDirectory.appendingPathComponent("launcher.log")
        guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else { throw BenchError("cannot create \(logFile.path)") }
        let log = try FileHandle(forWritingTo: logFile)
        let process = Process()
        process.executableURL = binDirectory.appendingPathComponent("waypoint")
        process.arguments = [
            "up", "--no-build", "--bin-path", binDirectory.path, "--data-dir", dataDirectory.path, "--base-port", String(basePort),
            "--demo", "--ready-timeout", String(readyTimeoutSeconds), "--drain-timeout", "10", "--log-format", "json",
        ]
        // The seeded tour-management file makes the launcher believe the services ran before it and leave personal-data
        // keys unwrapped; a key of our own keeps the platform as a fresh `waypoint up` runs it (the administrator made
        // before the start has its personal data sealed with the same key).
        process.environment = ProcessInfo.processInfo.environment.merging(settings) { $1 }.merging(secrets.environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        return LaunchedPlatform(dataDirectory: dataDirectory, logFile: logFile, process: process)
    }

    var launcherPid: Int32 { process.processIdentifier }

    /// The launcher's current state file, if it wrote one.
    func state() -> State? {
        let url = dataDirectory.appendingPathComponent("run").appendingPathComponent("launcher.json")
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(State.self, from: data)
    }

    /// Waits until every service is ready and the demo data is seeded; throws when the launcher exits or `timeout`
    /// passes first.
    func waitUntilReady(timeout: Duration, logger: Logger) async throws -> State {
        let deadline = ContinuousClock.now + timeout
        var announced = false
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw BenchError("the launcher exited (status \(process.terminationStatus)); see \(logFile.path)") }
            if let state = state(), state.phase == "running" {
                if !announced {
                    logger.info("platform ready: \(state.services.map { "\($0.name) \($0.state)" }.joined(separator: ", ")); waiting for the demo data")
                    announced = true
                }
                let console = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
                if let failed = console.split(separator: "\n").first(where: { $0.contains(Self.demoFailed) }) {
                    throw BenchError("the launcher could not seed the demo: \(failed)")
                }
                if console.split(separator: "\n").contains(where: Self.isDemoSeeded) { return state }
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw BenchError("the platform was not ready within \(timeout); see \(logFile.path)")
    }

    /// Stops the platform as an operator does: SIGINT to the launcher, which stops every service gracefully; a second
    /// SIGINT (the launcher kills them) after `grace`, SIGKILL as a last resort. Returns the processes that were still
    /// running afterwards and had to be killed (empty when all went well).
    func stop(grace: Duration, logger: Logger) async -> [String] {
        let services = (state()?.services ?? []).compactMap { service in service.pid.map { (service.name, $0) } }
        if process.isRunning {
            kill(process.processIdentifier, SIGINT)
            if await !waitForExit(grace) {
                logger.warning("the launcher did not stop within \(grace) of SIGINT: second SIGINT")
                kill(process.processIdentifier, SIGINT)
                if await !waitForExit(.seconds(15)) { kill(process.processIdentifier, SIGKILL) }
            }
        }
        var killed: [String] = []
        for (name, pid) in services where ProcessResources.isAlive(pid) && !isZombie(pid) {
            kill(pid, SIGKILL)
            killed.append("\(name) (pid \(pid))")
        }
        return killed
    }

    /// The last `count` lines of the launcher's console, for a failure report.
    func logTail(_ count: Int) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(count).joined(separator: "\n")
    }

    private func waitForExit(_ timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
        }
        return !process.isRunning
    }

    private func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// A base port whose seven ports (gateway and six services) are free on 127.0.0.1, below the ephemeral range so
    /// the benchmark's own client connections cannot take them.
    static func freeBasePort() throws -> Int {
        for _ in 0..<50 {
            let base = Int.random(in: 20_000...32_000)
            if (base..<(base + 7)).allSatisfy(isPortFree) { return base }
        }
        throw BenchError("no seven consecutive free ports found between 20000 and 32007")
    }

    private static func isPortFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = NginxPeer.loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
