#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ServiceTesting
import Synchronization
import Testing
@testable import WaypointCLI

/// The whole platform as an operator runs it: the real `waypoint up` over the built executables, on loopback, in a
/// temporary data directory that outlives restarts of the launcher.
final class Platform: Sendable {
    let binDirectory: URL
    let dataDirectory: URL
    let basePort: Int
    let kafka: String?
    /// `--postgres` and `--postgres-prefix`, when the platform stores in PostgreSQL.
    let postgres: PostgresServer?
    /// `--demo`: the launcher seeds the demo data once every service is ready.
    let demo: Bool
    /// Settings of the services beyond the launcher's (e.g. the weather provider's URL).
    let environment: [String: String]
    private let launcher = Mutex<ChildProcess?>(nil)
    let log = PlatformLog()

    init(dataDirectory: URL, kafka: String?, postgres: PostgresServer? = nil, demo: Bool = false, environment: [String: String] = [:]) throws {
        binDirectory = try BuiltExecutable.url(named: "waypoint").deletingLastPathComponent()
        self.dataDirectory = dataDirectory
        self.kafka = kafka
        self.postgres = postgres
        self.demo = demo
        self.environment = environment
        basePort = try Self.freeBasePort()
    }

    var gatewayURL: String { "http://127.0.0.1:\(basePort)" }
    var stateFile: URL { LauncherState.fileURL(dataDirectory: dataDirectory) }
    func state() throws -> LauncherState { try LauncherState.read(from: stateFile) }

    /// Starts the launcher and waits until every service is ready.
    func start() async throws {
        var arguments = ["up", "--no-build", "--bin-path", binDirectory.path, "--data-dir", dataDirectory.path,
                         "--base-port", String(basePort), "--log-format", "json", "--ready-timeout", "170", "--drain-timeout", "5"]
        if let kafka { arguments += ["--kafka", kafka] }
        if let postgres { arguments += ["--postgres", postgres.url(database: postgres.maintenanceDatabase), "--postgres-prefix", postgres.databasePrefix] }
        if demo { arguments.append("--demo") }
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WAYPOINT_") }.merging(self.environment) { $1 }
        let log = self.log
        let process = try ChildProcess(executable: binDirectory.appendingPathComponent("waypoint").path, arguments: arguments,
                                       environment: environment) { log.append($0) }
        launcher.withLock { $0 = process }
        _ = try await waitFor("every service ready") { () -> LauncherState? in
            if let status = process.exitStatus { throw TestSetupError("the launcher exited (\(status)):\n\(log.tail)") }
            guard let state = try? self.state(), state.phase == .running else { return nil }
            return state
        }
    }

    /// SIGINT to the launcher; it stops every service and exits 0.
    func stop() async throws {
        guard let process = launcher.withLock({ $0 }) else { return }
        kill(process.pid, SIGINT)
        let status = await process.waitForExit()
        launcher.withLock { $0 = nil }
        #expect(status == .exited(0), "\(log.tail)")
    }

    /// Last resort when a test fails half-way: SIGKILL to the launcher and every service it started.
    func kill9Everything() {
        let pids = ((try? state())?.services.compactMap(\.pid) ?? []) + [launcher.withLock { $0?.pid }].compactMap { $0 }
        for pid in pids { kill(pid, SIGKILL) }
    }

    /// `kill -9` one service and wait until the launcher has it ready again (another pid).
    func crashAndAwaitRestart(_ name: String) async throws {
        let killed = try #require(try state().service(name)?.pid)
        #expect(kill(killed, SIGKILL) == 0)
        _ = try await waitFor("\(name) restarted") { () -> Bool? in
            guard let service = try? self.state().service(name), service.state == .ready, let pid = service.pid, pid != killed else { return nil }
            return true
        }
    }

    /// Polls `condition` every 100 ms until it answers, for up to `timeout`.
    func waitFor<T>(_ what: String, timeout: Duration = .seconds(180), _ condition: () async throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = try await condition() { return value }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSetupError("timed out waiting for \(what); launcher output:\n\(log.tail)")
    }

    static func freeBasePort() throws -> Int {
        for _ in 0..<50 {
            // Below the ephemeral range (32768–60999 here): a port chosen there may be taken by an outgoing connection of
            // a test running beside it before the service binds it (path-review then restarts until the port is free).
            let base = Int.random(in: 20_000...32_000)
            if (0..<7).allSatisfy({ StartupChecks.isPortFree(base + $0) }) { return base }
        }
        throw TestSetupError("no seven consecutive free ports found")
    }
}

/// The launcher's output (every service's prefixed lines) as it arrives.
final class PlatformLog: Sendable {
    private let bytes = Mutex<[UInt8]>([])
    func append(_ chunk: ArraySlice<UInt8>?) { if let chunk { bytes.withLock { $0 += chunk } } }
    var tail: String { String(decoding: bytes.withLock { $0.suffix(6_000) }, as: UTF8.self) }
    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
}

/// A client app calling the gateway: JSON in and out, bearer tokens, nothing else.
struct GatewayClient: Sendable {
    let base: String

    struct Reply: @unchecked Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: Data
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
        var array: [[String: Any]] { ((try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]]) ?? [] }
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    func send(_ method: HTTPMethod, _ path: String, json: Any? = nil, raw: Data? = nil, contentType: String? = nil,
              token: String? = nil, headers extra: [String: String] = [:]) async throws -> Reply {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: json)))
        } else if let raw {
            request.headers.add(name: "Content-Type", value: contentType ?? "application/octet-stream")
            request.body = .bytes(ByteBuffer(data: raw))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 * 1_048_576)
        return Reply(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: Data(buffer: body))
    }

    /// Opens `path` as a Server-Sent Events stream and returns the text received until it contains `marker` (or throws
    /// after `timeout`).
    func awaitEvent(_ path: String, token: String, containing marker: String, timeout: Duration = .seconds(15)) async throws -> String {
        var request = HTTPClientRequest(url: base + path)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(timeout.components.seconds))
        #expect(response.status == .ok && response.headers.first(name: "Content-Type")?.hasPrefix("text/event-stream") == true)
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                var text = ""
                for try await chunk in response.body {
                    text += String(buffer: chunk)
                    if text.contains(marker) { return text }
                }
                return text
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let text = try await group.next() ?? nil, text.contains(marker) else {
                throw TestSetupError("no \(marker) on \(path) within \(timeout)")
            }
            return text
        }
    }

    /// Logs in; the access token.
    func login(email: String, password: String) async throws -> String {
        let login = try await send(.POST, "/v1/auth/login", json: ["email": email, "password": password, "deviceId": "e2e"])
        #expect(login.status == 200, "login \(email): \(String(decoding: login.body, as: UTF8.self))")
        return try #require(login.json["accessToken"] as? String)
    }

    /// Registers an account with `role` and logs in; the access token and the user id.
    func account(_ username: String, role: String) async throws -> (token: String, id: String) {
        let email = "\(username)@example.com", password = "Correct-Horse-\(username)-2026"
        let registered = try await send(.POST, "/v1/auth/register", json: ["username": username, "email": email, "password": password, "role": role])
        #expect(registered.status == 201, "register \(username): \(String(decoding: registered.body, as: UTF8.self))")
        let login = try await send(.POST, "/v1/auth/login", json: ["email": email, "password": password, "deviceId": "e2e"])
        #expect(login.status == 200, "login \(username): \(String(decoding: login.body, as: UTF8.self))")
        let token = try #require(login.json["accessToken"] as? String)
        let me = try await send(.GET, "/v1/users/me", token: token)
        return (token, try #require(me.json["id"] as? String))
    }
}
