import AsyncHTTPClient
import Foundation
import Gateway
import Hummingbird
import Logging
import Messaging
import NIOCore
import NIOHTTP1
import ServiceKit
import ServiceTesting
import Synchronization

/// A gateway running on loopback in front of in-test stand-ins for the services, and a client to call it.
struct GatewayHarness: Sendable {
    /// The gateway's port.
    let port: Int
    /// The running application (breakers, cache, limiters).
    let app: GatewayApplication
    /// The ports of the stand-ins by service name.
    let upstreamPorts: [String: Int]

    /// A gateway whose upstreams are `upstreams` (service name → router); every other service is unconfigured unless
    /// `configure` gives it a URL. Rate limits are high unless `configure` lowers them.
    static func run<T: Sendable>(
        upstreams: [String: StandIn] = [:],
        configure: @Sendable (inout GatewayConfiguration) -> Void = { _ in },
        keySource: (any AccessTokenKeySource)? = StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
        logSink: LogLines? = nil,
        extensions: @escaping @Sendable (GatewayRoutes) throws -> Void = { _ in },
        body: @Sendable (GatewayHarness) async throws -> T
    ) async throws -> T {
        try await withStandIns(Array(upstreams), ports: [:]) { ports in
            var configuration = GatewayConfiguration(
                service: ServiceConfiguration(serviceName: GatewayService.name, port: 0, drainTimeout: .seconds(5)),
                endpoints: ServiceEndpoints(baseURLs: ports.mapValues { URL(string: "http://127.0.0.1:\($0)")! }),
                authRatePerMinute: 100_000, ratePerMinute: 100_000
            )
            // Generous unless a test is about timeouts: under the shared unit stage a stand-in can take seconds to
            // answer, and the 5 s default turned such an answer into a 504 (no X-Cache) in unrelated tests.
            configuration.upstreamTimeout = .seconds(60)
            configure(&configuration)
            let final = configuration
            let logger = logSink.map { sink in
                Logger(label: "gateway") { JSONLogHandler(label: $0, logLevel: .info, sink: { sink.append($0) }) }
            } ?? LoopbackServer.quietLogger
            let appBox = Mutex<GatewayApplication?>(nil)
            return try await LoopbackServer.run({ report in
                let app = try buildGateway(configuration: final, metrics: ServiceMetrics(), keySource: keySource, logger: logger,
                                           onServerRunning: { report($0.localAddress!.port!) }, extensions: extensions)
                appBox.withLock { $0 = app }
                return app
            }, body: { port in
                try await body(GatewayHarness(port: port, app: appBox.withLock { $0! }, upstreamPorts: ports))
            })
        }
    }

    private static func withStandIns<T: Sendable>(
        _ remaining: [(String, StandIn)], ports: [String: Int],
        body: @Sendable ([String: Int]) async throws -> T
    ) async throws -> T {
        guard let (name, standIn) = remaining.first else { return try await body(ports) }
        return try await LoopbackServer.run(router: standIn.makeRouter()) { port in
            var ports = ports
            ports[name] = port
            return try await withStandIns(Array(remaining.dropFirst()), ports: ports, body: body)
        }
    }

    /// The gateway's URL for `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Sends a request and collects the answer (up to 64 MiB). The deadline outlasts the harness's upstream timeout
    /// (60 s): under the shared unit stage an 8 MiB upload once took longer than the former 20 s.
    func send(
        _ method: HTTPMethod = .GET, _ path: String, headers: [(String, String)] = [], body: HTTPClientRequest.Body? = nil,
        timeout: Duration = .seconds(90)
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url(path))
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = body
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(timeout.components.seconds))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: bytes)
    }
}

/// A collected answer.
struct Answer: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: ByteBuffer

    var text: String { String(buffer: body) }

    /// The first value of `name`.
    func header(_ name: String) -> String? { headers.first(name: name) }

    /// The problem document of an error answer.
    func problem() throws -> ProblemDocument {
        try JSONDecoder().decode(ProblemDocument.self, from: Data(buffer: body))
    }

    /// The body decoded as JSON.
    func json<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(buffer: body))
    }
}

/// Log lines written by a test's gateway.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }

    /// The parsed lines whose message is `message`.
    func entries(_ message: String) -> [[String: Any]] {
        all.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["message"] as? String == message else { return nil }
            return object
        }
    }
}

/// A stand-in for a service: builds its router when started.
struct StandIn: Sendable {
    let makeRouter: @Sendable () -> Router<BasicRequestContext>
}
