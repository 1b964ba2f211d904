import Auth
import AsyncHTTPClient
import AuthInfrastructure
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Messaging
import NIOCore
import ServiceKit
import ServiceTesting
import Synchronization

/// A clock tests can move forward (lockout and token expiry).
final class TestClock: Sendable {
    private let current = Mutex(Date())

    func now() -> Date { current.withLock { $0 } }

    func advance(seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// One `auth` instance for a test: real storage (SQLite in a temporary directory, or a fresh PostgreSQL schema), real
/// bcrypt (cost 10, the lowest allowed), real keys, served over loopback HTTP.
struct AuthHarness {
    static let internalToken = "auth-test-internal-token-0123456789"

    let backend: TestBackend
    let directory: TemporaryDirectory
    let schema: String
    let clock: TestClock

    init(backend: TestBackend = .sqlite, clock: TestClock = TestClock()) {
        self.backend = backend
        self.directory = TemporaryDirectory("waypoint-auth")
        self.schema = TestBackend.freshSchema("auth")
        self.clock = clock
    }

    var mailbox: URL { get throws { try configuration().mailboxDirectory } }

    func configuration(_ adjust: (inout AuthConfiguration) -> Void = { _ in }) throws -> AuthConfiguration {
        var configuration = AuthConfiguration(
            service: ServiceConfiguration(serviceName: "auth", port: 0, internalToken: Self.internalToken, logLevel: .warning),
            runtime: try backend.runtime("auth", in: directory, schema: schema),
            bcryptCost: 10)
        adjust(&configuration)
        return configuration
    }

    /// Runs `body` against a started instance (a live server on a loopback port; the client sends one request at a
    /// time over one connection); a second call on the same harness is a restart on the same storage.
    func run<T: Sendable>(_ adjust: @Sendable (inout AuthConfiguration) -> Void = { _ in },
                          _ body: @Sendable (AuthServer, AuthClient) async throws -> T) async throws -> T {
        let configuration = try configuration(adjust)
        let logger = {
            var logger = Logger(label: "test.auth")
            logger.logLevel = .warning
            return logger
        }()
        let clock = clock
        return try await ServiceStorage.withOpen(configuration.runtime, logger: logger) { storage in
            let server = try await AuthServer.assemble(configuration, storage: storage, now: { clock.now() }, logger: logger)
            let app = try server.application(metrics: ServiceMetrics(), logger: logger, now: { clock.now() })
            let result = try await app.test(.live) { client in
                try await body(server, AuthClient(client: client))
            }
            await server.hasher.shutdown()
            return result
        }
    }

    func remove() {
        directory.remove()
    }
}

/// JSON over the test client.
struct AuthClient: Sendable {
    let client: any TestClientProtocol

    struct Reply: Sendable {
        let status: Int
        let headers: HTTPFields
        let text: String

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        }

        subscript(key: String) -> String? { json[key] as? String }

        /// The field error codes of a 422 problem, as `field:code`.
        var fieldErrors: Set<String> {
            Set(((json["fieldErrors"] as? [[String: Any]]) ?? []).map { "\($0["field"] as? String ?? ""):\($0["code"] as? String ?? "")" })
        }
    }

    var port: Int? { client.port }

    func send(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil, token: String? = nil,
              headers extra: HTTPFields = [:]) async throws -> Reply {
        var headers = extra
        if json != nil { headers[.contentType] = "application/json" }
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response = try await client.executeRequest(uri: uri, method: method, headers: headers,
                                                       body: json.map { ByteBuffer(string: $0) })
        return Reply(status: Int(response.status.code), headers: response.headers, text: String(buffer: response.body))
    }

    func post(_ uri: String, _ json: String, token: String? = nil) async throws -> Reply {
        try await send(.post, uri, json: json, token: token)
    }

    func register(_ username: String, _ email: String, password: String = "Secret123x", role: String = "traveller") async throws -> Reply {
        try await post("/v1/auth/register", #"{"username":"\#(username)","email":"\#(email)","password":"\#(password)","role":"\#(role)"}"#)
    }

    /// Sends one registration per `(username, email)` all at once, each over its own connection, and returns their
    /// statuses. The deadline is generous on purpose: a race's outcome is what is checked, and under a fully loaded
    /// parallel test run the server's tasks can wait a long time for a thread.
    static func race(port: Int, _ registrations: [(username: String, email: String)]) async throws -> [Int] {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = registrations.count
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for (username, email) in registrations {
                    group.addTask {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/auth/register")
                        request.method = .POST
                        request.headers.add(name: "Content-Type", value: "application/json")
                        request.body = .bytes(ByteBuffer(string:
                            #"{"username":"\#(username)","email":"\#(email)","password":"Secret123x","role":"traveller"}"#))
                        let response = try await http.execute(request, deadline: .now() + .minutes(5))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        return Int(response.status.code)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            try await http.shutdown()
            return statuses
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    func login(_ email: String, password: String = "Secret123x", device: String = "device-1") async throws -> Reply {
        try await post("/v1/auth/login", #"{"email":"\#(email)","password":"\#(password)","deviceId":"\#(device)"}"#)
    }

    func refresh(_ token: String, device: String = "device-1") async throws -> Reply {
        try await post("/v1/auth/refresh", #"{"refreshToken":"\#(token)","deviceId":"\#(device)"}"#)
    }
}
