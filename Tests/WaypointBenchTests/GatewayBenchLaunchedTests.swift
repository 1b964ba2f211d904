import Foundation
import ReferenceData
import ServiceTesting
import Testing

/// `waypoint-bench gateway` as an operator runs it, at toy sizes, over the built executables: the real launcher starts
/// the whole platform, the bench seeds it, sets the bike mix up through the public APIs (administrator, moderator,
/// riders, approved paths, sessions, trips) and runs both mixes. Proves the mixes' requests are valid (no error), not
/// how fast they are: debug builds on a shared machine.
@Suite("waypoint-bench gateway over a launched platform", .serialized)
struct GatewayBenchLaunchedTests {
    @Test("a tiny run prints every key, with the bike mix's four kinds and no error in either mix", .timeLimit(.minutes(10)))
    func tinyRun() async throws {
        let bench = try BuiltExecutable.url(named: "waypoint-bench")
        let directory = TemporaryDirectory("waypoint-bench-gateway-test")
        defer { directory.remove() }
        let arguments = [
            "gateway", "--bin-path", bench.deletingLastPathComponent().path, "--directory", directory.url.path,
            "--tours", "20", "--rate", "20", "--duration", "3", "--warmup", "1", "--connections", "4",
            "--overhead-requests", "10", "--overhead-rate", "20", "--idle-connections", "4", "--idle-hold", "1", "--idle-sample", "2",
            "--peer-requests", "60", "--bike-rate", "20", "--bike-duration", "3", "--bike-sessions", "4", "--bike-paths", "4", "--bike-connections", "4",
            "--settle-timeout", "0", "--ready-timeout", "240",
        ]
        let stdout = directory.url.appendingPathComponent("stdout.json"), stderr = directory.url.appendingPathComponent("stderr.log")
        let process = try Self.start(bench, arguments, stdout: stdout, stderr: stderr)
        while process.isRunning { try await Task.sleep(for: .milliseconds(200)) }
        let log = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
        let tail = log.split(separator: "\n").suffix(30).joined(separator: "\n")
        try #require(process.terminationStatus == 0, "waypoint-bench gateway exited \(process.terminationStatus):\n\(tail)")

        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: stdout)) as? [String: Any], "stdout is one JSON object")
        #expect(Set(json.keys) == ["rate_rps", "duration_s", "latency_ms", "errors", "overhead_p50_ms", "idle_connections_held", "gateway_rss_mb", "bike",
                                   "proxy", "peer", "ratio"])
        // The peer phase ran nginx in front of tour-management: both proxies measured, no failed request (it throws otherwise).
        let proxy = try #require(json["proxy"] as? [String: Any]), nginx = try #require((json["peer"] as? [String: Any])?["nginx"] as? [String: Any])
        #expect((proxy["cpu_us_per_request"] as? Double ?? -1) >= 0 && (nginx["cpu_us_per_request"] as? Double ?? -1) >= 0, "\(proxy) \(nginx)")
        #expect(json["ratio"] is [String: Any])
        #expect(json["errors"] as? Int == 0, "the tours mix:\n\(tail)")
        let bike = try #require(json["bike"] as? [String: Any])
        #expect(Set(bike.keys) == ["errors", "route_ms", "position_ms", "upload_ms", "bbox_ms"])
        #expect(bike["errors"] as? Int == 0, "the bike mix:\n\(tail)")
        for key in ["route_ms", "position_ms", "upload_ms", "bbox_ms"] {
            let times = try #require(bike[key] as? [String: Any], "\(key)")
            let p50 = try #require(times["p50"] as? Double), p99 = try #require(times["p99"] as? Double)
            #expect(p50 > 0 && p50 <= p99 && p99 < 10_000, "\(key): \(times)")
        }
        // The setup went through every step on the real services, and every process stopped.
        for line in ["4 riders registered and signed in", "paths drafted by the riders and approved by the moderators (1)",
                     "4 navigation sessions started through the gateway", "4 trips started through the gateway", "every process stopped"] {
            #expect(log.contains(line), "stderr has “\(line)”")
        }
    }

    @Test("SIGINT to the benchmark stops the platform it started, removes its data directory and exits 130", .timeLimit(.minutes(10)))
    func interruptedRunStopsItsPlatform() async throws {
        let bench = try BuiltExecutable.url(named: "waypoint-bench")
        let directory = TemporaryDirectory("waypoint-bench-gateway-interrupted")
        defer { directory.remove() }
        let runs = directory.url.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        // A proxy-only run long enough to be interrupted while the platform serves it.
        let stderr = directory.url.appendingPathComponent("stderr.log")
        let process = try Self.start(bench, ["gateway", "--bin-path", bench.deletingLastPathComponent().path, "--directory", runs.path, "--only", "proxy",
                                             "--tours", "20", "--peer-requests", "100000", "--settle-timeout", "0", "--ready-timeout", "240"],
                                     stdout: directory.url.appendingPathComponent("stdout.json"), stderr: stderr)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // Wait until the launcher reports every service running, and note every pid.
        var pids: [Int32] = []
        let deadline = ContinuousClock.now + .seconds(300)
        while pids.isEmpty, ContinuousClock.now < deadline, process.isRunning {
            try await Task.sleep(for: .milliseconds(500))
            let dataDirectories = (try? FileManager.default.contentsOfDirectory(at: runs, includingPropertiesForKeys: nil)) ?? []
            for dataDirectory in dataDirectories {
                let stateFile = dataDirectory.appendingPathComponent("run").appendingPathComponent("launcher.json")
                guard let state = (try? Data(contentsOf: stateFile)).flatMap({ try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }),
                      state["phase"] as? String == "running", let launcher = state["launcherPid"] as? Int,
                      let services = state["services"] as? [[String: Any]] else { continue }
                pids = [Int32(launcher)] + services.compactMap { ($0["pid"] as? Int).map(Int32.init) }
            }
        }
        let log = { (try? String(contentsOf: stderr, encoding: .utf8)).map { $0.split(separator: "\n").suffix(20).joined(separator: "\n") } ?? "" }
        try #require(pids.count >= 5, "the platform did not come up:\n\(log())")
        #expect(pids.allSatisfy(Self.isRunning))

        kill(process.processIdentifier, SIGINT)
        let stopDeadline = ContinuousClock.now + .seconds(120)
        while process.isRunning, ContinuousClock.now < stopDeadline { try await Task.sleep(for: .milliseconds(200)) }
        try #require(!process.isRunning, "the benchmark did not exit within 120 s of SIGINT:\n\(log())")
        #expect(process.terminationReason == .exit && process.terminationStatus == 130, "exit \(process.terminationStatus):\n\(log())")
        #expect(pids.filter(Self.isRunning).isEmpty, "still running: \(pids.filter(Self.isRunning))")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: runs.path)) ?? ["?"]).isEmpty, "the data directory was removed")
        #expect(log().contains("every process stopped"), "\(log())")
    }

    /// Starts `waypoint-bench` with `arguments`, its output in the two files. The test run's own WAYPOINT_* settings stay
    /// out of the platform; the reference data is named explicitly.
    static func start(_ bench: URL, _ arguments: [String], stdout: URL, stderr: URL) throws -> Process {
        let data = try #require(ReferenceDataDirectory.locate(), "reference data (../shared/data) not found")
        FileManager.default.createFile(atPath: stdout.path, contents: nil)
        FileManager.default.createFile(atPath: stderr.path, contents: nil)
        let process = Process()
        process.executableURL = bench
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WAYPOINT_") }
            .merging(["WAYPOINT_REFERENCE_DATA_DIR": data.path]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        try process.run()
        return process
    }

    /// Whether `pid` is a live process (a zombie, exited but not yet reaped, is not).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
