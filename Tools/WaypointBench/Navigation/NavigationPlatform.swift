import AsyncHTTPClient
import EventSourcing
import Foundation
import Gateway
import GatewayNotifications
import Logging
import Messaging
import Navigation
import NIOCore
import PostgresNIO
import RoadNetwork
import ServiceKit
import ServiceTesting
import Synchronization

/// What `waypoint-bench navigation` runs, all in this process on loopback:
///
/// - stand-ins for the producers navigation reads — auth (erasures, revoked sessions), path-review (`waypoint.paths`),
///   tour-management — each an embedded feed over a SQLite log (`ProducerFeedStub`, as the navigation tests use them),
///   and a JWKS endpoint publishing the test signing key (auth's `/.well-known/jwks.json`);
/// - the real navigation service, assembled as `navigation serve` does it (`NavigationServer.assemble` and its
///   application) over `ServiceStorage.withOpen` — SQLite in a temporary data directory, or a fresh PostgreSQL schema —
///   with the road network of the three reference extracts (loaded once through the compiled cache);
/// - the real gateway, assembled as `gateway serve` does it (`GatewayServer`: configuration read from an environment,
///   the notification hub reading navigation's embedded feed because `WAYPOINT_NOTIFICATIONS_PRODUCERS=navigation`,
///   the revocation follower on auth's feed, the push stream mounted, tokens verified against the JWKS endpoint).
struct NavigationPlatform: Sendable {
    static let internalToken = "waypoint-bench-navigation-internal-token"

    let server: NavigationServer
    let feeds: Feeds
    /// navigation's own port and the gateway's.
    let navigationPort: Int
    let gatewayPort: Int
    /// Every "community layer swapped" line of the overlay (its rebuild time).
    let swaps: OverlaySwaps

    struct Feeds: Sendable {
        let auth: AuthFeedStub
        let paths: ProducerFeedStub
        let tours: ProducerFeedStub
    }

    var navigationBase: String { "http://127.0.0.1:\(navigationPort)" }
    var gatewayBase: String { "http://127.0.0.1:\(gatewayPort)" }

    /// Runs `body` with the platform up and ready; tears it down afterwards.
    static func with<T: Sendable>(roads: NavigationRoads, postgresURL: String?, logger: Logger,
                                  _ body: @escaping @Sendable (NavigationPlatform) async throws -> T) async throws -> T {
        let quiet = Self.quietLogger
        let swaps = OverlaySwaps()
        return try await AuthFeedStub.with(internalToken: internalToken, logger: quiet) { auth in
            try await ProducerFeedStub.with("path-review", internalToken: internalToken, logger: quiet) { paths in
                try await ProducerFeedStub.with("tour-management", internalToken: internalToken, logger: quiet) { tours in
                    let feeds = Feeds(auth: auth, paths: paths, tours: tours)
                    return try await withNavigation(roads: roads, feeds: feeds, postgresURL: postgresURL, swaps: swaps, logger: logger) { server, port in
                        try await LoopbackServer.run(router: JWKSEndpoint(keys: [TestSigningKey.primary]).router()) { jwksPort in
                            try await withGateway(navigationPort: port, jwksPort: jwksPort, authURL: auth.url, logger: logger) { gatewayPort in
                                try await body(NavigationPlatform(server: server, feeds: feeds, navigationPort: port, gatewayPort: gatewayPort, swaps: swaps))
                            }
                        }
                    }
                }
            }
        }
    }

    /// navigation over fresh storage, on a loopback port, once its read models and community layer are live.
    private static func withNavigation<T: Sendable>(roads: NavigationRoads, feeds: Feeds, postgresURL: String?, swaps: OverlaySwaps, logger: Logger,
                                                    _ body: @escaping @Sendable (NavigationServer, Int) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-bench-navigation-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = postgresURL.map { _ in "bench_navigation_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())" }
        let backend: RuntimeSettings.Backend
        if let postgresURL, let schema {
            logger.info("postgres: schema \(schema) (dropped afterwards)")
            backend = .postgres(url: postgresURL, schema: schema)
        } else {
            backend = .sqlite(path: directory.appendingPathComponent("navigation.sqlite").path)
        }
        let configuration = NavigationConfiguration(
            service: ServiceConfiguration(serviceName: "navigation", port: 0, internalToken: internalToken, logLevel: .critical),
            runtime: RuntimeSettings(serviceName: "navigation", dataDirectory: directory, backend: backend),
            endpoints: ServiceEndpoints(baseURLs: ["auth": feeds.auth.url, "path-review": feeds.paths.url, "tour-management": feeds.tours.url]),
            extracts: [])
        // The service's logger: warnings and worse to stderr, the overlay's swaps (info) kept for the figures.
        let serviceLogger = Logger(label: "waypoint.navigation") { label in OverlaySwapCapture(label: label, swaps: swaps) }
        return try await ServiceStorage.withOpen(configuration.runtime, logger: quietLogger) { storage in
            if let level = try storage.sqlite?.writerSynchronousLevel() { logger.info("navigation: SQLite writer synchronous = \(level)") }
            do {
                let server = try await NavigationServer.assemble(configuration, storage: storage, roads: roads, logger: serviceLogger)
                let result = try await LoopbackServer.run({ reportPort in
                    try server.application(metrics: ServiceMetrics(),
                                           keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                                           logger: serviceLogger, onServerRunning: { reportPort($0.localAddress!.port!) })
                }, body: { port in
                    await waitUntilLive([server.sessionList])
                    while !server.overlay.isLoaded { try await Task.sleep(for: .milliseconds(20)) }
                    return try await body(server, port)
                })
                try await dropSchema(schema, of: storage)
                return result
            } catch {
                try? await dropSchema(schema, of: storage)
                throw error
            }
        }
    }

    private static func dropSchema(_ schema: String?, of storage: ServiceStorage) async throws {
        guard let schema, let database = storage.postgres else { return }
        try await database.client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE"))
    }

    /// The gateway as `gateway serve` assembles it (``GatewayServer``), configured through the environment it reads —
    /// the same keys an operator sets — with navigation, auth (JWKS and feed) as the only upstreams that exist; the
    /// others point at a closed port (nothing here calls them).
    private static func withGateway<T: Sendable>(navigationPort: Int, jwksPort: Int, authURL: URL, logger: Logger,
                                                 _ body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
        let nowhere = "http://127.0.0.1:\(try closedPort())"
        let environment = [
            "WAYPOINT_GATEWAY_PORT": "0",
            "WAYPOINT_INTERNAL_TOKEN": internalToken,
            "WAYPOINT_NAVIGATION_URL": "http://127.0.0.1:\(navigationPort)",
            "WAYPOINT_AUTH_URL": authURL.absoluteString,
            "WAYPOINT_GATEWAY_JWKS_URL": "http://127.0.0.1:\(jwksPort)/.well-known/jwks.json",
            "WAYPOINT_TOUR_MANAGEMENT_URL": nowhere, "WAYPOINT_PATH_REVIEW_URL": nowhere, "WAYPOINT_RECORD_TRIP_URL": nowhere,
            "WAYPOINT_ANALYTICS_URL": nowhere,
            "WAYPOINT_NOTIFICATIONS_PRODUCERS": "navigation",
            "WAYPOINT_GATEWAY_REQUIRED_SERVICES": "navigation",
            // The edge cache follows tour-management's events; there is none here (and no cacheable navigation path).
            "WAYPOINT_GATEWAY_CACHE_EVENTS": "off",
        ]
        let configuration = try GatewayConfiguration.fromEnvironment(environment)
        let hubConfiguration = try NotificationHubConfiguration.fromEnvironment(internalToken: configuration.service.internalToken,
                                                                                environment: environment)
        let quiet = quietLogger
        let hub = NotificationHub(configuration: hubConfiguration, logger: quiet)
        // GatewayServer.revocationTransport for the embedded transport: auth's feed.
        let revocations = RevokedSessionsFollower(transport: .embedded(authURL: authURL, internalToken: internalToken), logger: quiet)
        logger.info("gateway: upstream navigation at :\(navigationPort), notification producers \(environment["WAYPOINT_NOTIFICATIONS_PRODUCERS"]!)")
        return try await LoopbackServer.run({ reportPort in
            try buildGateway(configuration: configuration, metrics: ServiceMetrics(), revokedSessions: revocations.registry, logger: quiet,
                             background: [hub, revocations], onServerRunning: { reportPort($0.localAddress!.port!) },
                             extensions: { $0.addPushStream(hub: hub) })
        }, body: { port in
            try await waitForReady("http://127.0.0.1:\(port)/health/ready")
            return try await body(port)
        })
    }

    /// Polls `url` until it answers 200 (at most 60 s).
    private static func waitForReady(_ url: String) async throws {
        let clock = ContinuousClock(), deadline = clock.now + .seconds(60)
        while clock.now < deadline {
            if let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5)), response.status == .ok { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchError("the gateway did not become ready (\(url))")
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "waypoint.bench.navigation.quiet")
        logger.logLevel = .critical
        return logger
    }
}

/// The overlay's "community layer swapped" lines: version and rebuild milliseconds of each swap.
final class OverlaySwaps: Sendable {
    struct Swap: Sendable {
        var version: Int64
        var milliseconds: Double
        var paths: Int
    }

    private let swaps = Mutex<[Swap]>([])

    func record(_ swap: Swap) { swaps.withLock { $0.append(swap) } }

    var all: [Swap] { swaps.withLock { $0 } }
}

/// A log handler for the navigation service under test: keeps the overlay's swaps, forwards warnings and worse to
/// stderr (everything else a service logs at info would drown the bench's progress lines).
struct OverlaySwapCapture: LogHandler {
    let label: String
    let swaps: OverlaySwaps
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    private var stderr: StreamLogHandler

    init(label: String, swaps: OverlaySwaps) {
        self.label = label
        self.swaps = swaps
        stderr = StreamLogHandler.standardError(label: label)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if event.message.description == "community layer swapped", let metadata = event.metadata {
            swaps.record(.init(version: Int64("\(metadata["version"] ?? "0")") ?? 0, milliseconds: Double("\(metadata["ms"] ?? "0")") ?? 0,
                               paths: Int("\(metadata["paths"] ?? "0")") ?? 0))
        }
        if event.level >= .warning { stderr.log(event: event) }
    }
}
