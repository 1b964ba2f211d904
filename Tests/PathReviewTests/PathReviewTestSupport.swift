import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Messaging
@testable import PathReview
import ReferenceData
import RoadNetwork
import ServiceKit
import ServiceTesting
import Testing

/// The road network of the tests: the Krems reference extract, imported once per test process (cached in a temporary
/// directory so a second process reads the cache), with its router and streets.
enum PathReviewTestNetwork {
    static let roads: PathReviewRoads = {
        let extract = try! ReferenceDataDirectory.file("krems.osm.gz").path
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-path-review-tests-roads").path
        return PathReviewRoads(network: try! RoadNetworkLoader.load(extracts: [extract], cacheDirectory: cache))
    }()
}

/// The service through its router (`app.test(.router)`), on a backend, with the Krems network.
enum PathReviewApp {
    static var quiet: Logger {
        var logger = Logger(label: "path-review-tests")
        logger.logLevel = .critical
        return logger
    }

    static let internalToken = "internal-token-for-path-review-tests"

    static func with(_ backend: TestBackend = .sqlite,
                     _ body: @escaping @Sendable (any TestClientProtocol, PathReviewServer) async throws -> Void) async throws {
        try await with(backend) { client, server, _ in try await body(client, server) }
    }

    /// The same with auth's stand-in, whose feed the service's `waypoint.auth` consumer reads (erasures), and other
    /// producers' base URLs (`record-trip`: its feed of rides and obstacles).
    static func with(_ backend: TestBackend = .sqlite, endpoints: [String: URL] = [:],
                     _ body: @escaping @Sendable (any TestClientProtocol, PathReviewServer, AuthFeedStub) async throws -> Void) async throws {
        try await AuthFeedStub.with(internalToken: internalToken, logger: quiet) { auth in
            let directory = TemporaryDirectory("waypoint-path-review")
            defer { directory.remove() }
            let configuration = PathReviewConfiguration(
                service: ServiceConfiguration(serviceName: "path-review", port: 0, internalToken: internalToken, logLevel: .warning),
                runtime: try backend.runtime("path-review", in: directory), endpoints: ServiceEndpoints(baseURLs: endpoints.merging(["auth": auth.url]) { $1 }), extracts: [])
            try await ServiceStorage.withOpen(configuration.runtime, logger: quiet) { storage in
                let server = try await PathReviewServer.assemble(configuration, storage: storage, roads: PathReviewTestNetwork.roads, logger: quiet)
                let app = try server.application(
                    metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                    logger: quiet)
                try await app.test(.router) { client in try await body(client, server, auth) }
            }
        }
    }

    /// `text` percent-encoded for a query value.
    static func query(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+,")
        return text.addingPercentEncoding(withAllowedCharacters: allowed)!
    }

    /// The field names of a problem's `fieldErrors`.
    static func fields(_ json: [String: Any]) -> [String] {
        (json["fieldErrors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
    }

    /// The drafts of a list answer.
    static func list(_ json: [String: Any]) -> [[String: Any]] {
        json["drafts"] as? [[String: Any]] ?? []
    }

    /// The streets of a list answer.
    static func streets(_ json: [String: Any]) -> [[String: Any]] {
        json["streets"] as? [[String: Any]] ?? []
    }
}

/// A value read inside the harness, kept for checks after it closed.
final class Captured<Value: Sendable>: @unchecked Sendable {
    // Written once inside the harness, read after it returned.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
