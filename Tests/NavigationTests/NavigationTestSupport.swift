import Foundation
import Hummingbird
import Kafka
import HummingbirdTesting
import Logging
import Messaging
@testable import Navigation
import ReferenceData
import RoadNetwork
import ServiceKit
import ServiceTesting
import Testing

/// The road network of the tests: the Krems reference extract, imported once per test process (cached in a temporary
/// directory so a second process reads the cache), with its router and guide.
enum NavigationTestNetwork {
    static let roads: NavigationRoads = {
        let extract = try! ReferenceDataDirectory.file("krems.osm.gz").path
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-navigation-tests-roads").path
        return NavigationRoads(network: try! RoadNetworkLoader.load(extracts: [extract], cacheDirectory: cache))
    }()
}

/// The producers a navigation service under test reads: stand-ins for auth (erasures, revoked sessions),
/// path-review (`waypoint.paths`) and tour-management (`waypoint.tours`), each an embedded feed on loopback.
struct NavigationFeeds: Sendable {
    let auth: AuthFeedStub
    let paths: ProducerFeedStub
    let tours: ProducerFeedStub
}

/// The service through its router (`app.test(.router)`), on a backend, with the Krems network.
enum NavigationApp {
    static var quiet: Logger {
        var logger = Logger(label: "navigation-tests")
        logger.logLevel = .critical
        return logger
    }

    static let internalToken = "internal-token-for-navigation-tests"

    static func with(_ backend: TestBackend = .sqlite,
                     _ body: @escaping @Sendable (any TestClientProtocol, NavigationServer, NavigationFeeds) async throws -> Void) async throws {
        try await withFeeds { feeds in
            try await serve(backend, feeds: feeds) { client, server in try await body(client, server, feeds) }
        }
    }

    /// The three stand-in feeds, for tests that start more than one navigation instance over them.
    static func withFeeds(_ body: @escaping @Sendable (NavigationFeeds) async throws -> Void) async throws {
        try await AuthFeedStub.with(internalToken: internalToken, logger: quiet) { auth in
            try await ProducerFeedStub.with("path-review", internalToken: internalToken, logger: quiet) { paths in
                try await ProducerFeedStub.with("tour-management", internalToken: internalToken, logger: quiet) { tours in
                    try await body(NavigationFeeds(auth: auth, paths: paths, tours: tours))
                }
            }
        }
    }

    /// The configuration of an instance reading `feeds`, storing in `runtime`.
    static func configuration(_ runtime: RuntimeSettings, feeds: NavigationFeeds) -> NavigationConfiguration {
        NavigationConfiguration(
            service: ServiceConfiguration(serviceName: "navigation", port: 0, internalToken: internalToken, logLevel: .warning),
            runtime: runtime,
            endpoints: ServiceEndpoints(baseURLs: ["auth": feeds.auth.url, "path-review": feeds.paths.url, "tour-management": feeds.tours.url]),
            extracts: [], overlayRefresh: .milliseconds(50))
    }

    /// One instance over `feeds` through its router.
    static func serve(_ backend: TestBackend, feeds: NavigationFeeds, kafkaBrokers: String? = nil,
                      _ body: @escaping @Sendable (any TestClientProtocol, NavigationServer) async throws -> Void) async throws {
        let directory = TemporaryDirectory("waypoint-navigation")
        defer { directory.remove() }
        let runtime = try backend.runtime("navigation", in: directory, kafkaBrokers: kafkaBrokers,
                                          kafkaProperties: kafkaBrokers == nil ? [:] : KafkaMockCluster.clientProperties)
        try await serve(runtime, feeds: feeds, body)
    }

    /// One instance over `feeds` storing in `runtime` (two calls with one runtime: a restart, or a second instance).
    static func serve(_ runtime: RuntimeSettings, feeds: NavigationFeeds,
                      _ body: @escaping @Sendable (any TestClientProtocol, NavigationServer) async throws -> Void) async throws {
        let configuration = configuration(runtime, feeds: feeds)
        try await ServiceStorage.withOpen(configuration.runtime, logger: quiet) { storage in
            let server = try await NavigationServer.assemble(configuration, storage: storage, roads: NavigationTestNetwork.roads, logger: quiet)
            let app = try server.application(
                metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                logger: quiet)
            try await app.test(.router) { client in try await body(client, server) }
        }
    }

    /// The field names of a problem's `fieldErrors`.
    static func fields(_ json: [String: Any]) -> [String] {
        (json["fieldErrors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
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
