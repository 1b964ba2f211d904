import Contracts
import EventSourcing
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Messaging
@testable import RecordTrip
import RecordTripAnalysis
import ReferenceData
import RoadNetwork
import ServiceKit
import ServiceTesting
import Testing

/// The road network of the tests: the Krems reference extract, imported once per test process (cached in a temporary
/// directory so a second process reads the cache).
enum TripTestNetwork {
    static let loaded: LoadedRoadNetwork = {
        let extract = try! ReferenceDataDirectory.file("krems.osm.gz").path
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("waypoint-record-trip-tests-roads").path
        return try! RoadNetworkLoader.load(extracts: [extract], cacheDirectory: cache)
    }()
    /// The matcher and node positions over it, built once for every service the tests assemble (each build is a
    /// second of synchronous work in a debug build: per test, it starved the timing-sensitive suites running beside).
    static let roads = RecordTripRoads(network: loaded)
}

/// A weather provider for tests: answers with a fixed observation, or fails while `failing` is set.
final class StubWeather: WeatherProvider, @unchecked Sendable {
    // A lock-protected flag: the provider is called from request tasks and the test body.
    private let lock = NSLock()
    private var _failing: Bool
    private var _calls = 0

    init(failing: Bool = false) {
        _failing = failing
    }

    var failing: Bool {
        get { lock.withLock { _failing } }
        set { lock.withLock { _failing = newValue } }
    }

    var calls: Int { lock.withLock { _calls } }

    static let observation = WeatherObservation(temperatureC: 14.5, windSpeedMps: 3.5, windDirectionDeg: 250, precipitationMm: 0.2,
                                                conditionCode: 61, source: "stub")

    func observation(latitude: Double, longitude: Double, time: Double) async throws -> WeatherObservation {
        let failing = lock.withLock { _calls += 1; return _failing }
        if failing { throw URLError(.cannotConnectToHost) }
        return Self.observation
    }
}

/// A weather provider that answers only after `delay` and ignores cancellation meanwhile (as a body read blocked in
/// an HTTP client does): a deliberately slow step of the analysis, bounded only by the service's weather timeout.
struct SlowWeather: WeatherProvider {
    let delay: Duration

    func observation(latitude: Double, longitude: Double, time: Double) async throws -> WeatherObservation {
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { done.resume() }
        }
        return StubWeather.observation
    }
}

extension AuthFeedStub {
    static let token = "internal-token-for-record-trip-tests"

    static func with<T: Sendable>(_ body: @escaping @Sendable (AuthFeedStub) async throws -> T) async throws -> T {
        try await with(internalToken: token, logger: TripApp.quiet, body)
    }
}

/// What a test holds: the service over its storage, and the auth stand-in.
struct TripHarness: Sendable {
    let server: RecordTripServer
    let auth: AuthFeedStub
    var storage: ServiceStorage { server.storage }
    var store: any EventStore & SnapshotStore { server.storage.store }
}

/// The service through its router (`app.test(.router)`), on a backend, with the Krems network and an auth stand-in.
enum TripApp {
    static var quiet: Logger {
        var logger = Logger(label: "record-trip-tests")
        logger.logLevel = .critical
        return logger
    }

    static func with(_ backend: TestBackend = .sqlite, weather: (any WeatherProvider)? = nil, live: Bool = false,
                     finishWait: Duration = .seconds(30), _ body: @escaping @Sendable (any TestClientProtocol, TripHarness) async throws -> Void) async throws {
        try await AuthFeedStub.with { auth in
            let directory = TemporaryDirectory("waypoint-record-trip")
            defer { directory.remove() }
            let configuration = RecordTripConfiguration(
                service: ServiceConfiguration(serviceName: "record-trip", port: 0, internalToken: AuthFeedStub.token, logLevel: .warning),
                runtime: try backend.runtime("record-trip", in: directory),
                endpoints: ServiceEndpoints(baseURLs: ["auth": auth.url]), extracts: [], weatherTimeout: .seconds(5),
                // Tests read the analysed trip from the finish itself, on a loaded machine too (30 s by default); 202 is
                // tested with Prefer, and with a short wait against a slow analysis.
                finishWait: finishWait)
            try await ServiceStorage.withOpen(configuration.runtime, logger: quiet) { storage in
                let server = try await RecordTripServer.assemble(configuration, storage: storage, roads: TripTestNetwork.roads,
                                                                 weather: weather, logger: quiet)
                let app = try server.application(
                    metrics: ServiceMetrics(), keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                    logger: quiet)
                try await app.test(live ? .live : .router) { client in try await body(client, TripHarness(server: server, auth: auth)) }
            }
        }
    }

    /// The service listening on a loopback port (for requests sent over a raw socket).
    static func withPort(_ body: @escaping @Sendable (Int, TripHarness) async throws -> Void) async throws {
        try await AuthFeedStub.with { auth in
            let directory = TemporaryDirectory("waypoint-record-trip")
            defer { directory.remove() }
            let configuration = RecordTripConfiguration(
                service: ServiceConfiguration(serviceName: "record-trip", port: 0, internalToken: AuthFeedStub.token, logLevel: .warning),
                runtime: try TestBackend.sqlite.runtime("record-trip", in: directory),
                endpoints: ServiceEndpoints(baseURLs: ["auth": auth.url]), extracts: [], finishWait: .seconds(30))
            try await ServiceStorage.withOpen(configuration.runtime, logger: quiet) { storage in
                let server = try await RecordTripServer.assemble(configuration, storage: storage, roads: TripTestNetwork.roads, logger: quiet)
                try await LoopbackServer.run({ reportPort in
                    try server.application(metrics: ServiceMetrics(),
                                           keySource: StaticKeySource(keys: [TestSigningKey.primary.kid: TestSigningKey.primary.publicKey]),
                                           logger: quiet, onServerRunning: { reportPort($0.localAddress!.port!) })
                }, body: { port in try await body(port, TripHarness(server: server, auth: auth)) })
            }
        }
    }

    static func token(_ user: UUID, _ role: Role = .traveller) async throws -> String {
        try await TokenForge.token(user, role)
    }

    /// Creates a trip; its id.
    static func create(_ client: any TestClientProtocol, token: String, navigationSession: UUID? = nil) async throws -> String {
        let body = navigationSession.map { #"{"navigationSessionId":"\#($0.uuidString.lowercased())"}"# } ?? "{}"
        let reply = try await client.sendJSON(.post, "/v1/trips", json: body, token: token)
        #expect(reply.status == 201)
        return try #require(reply.json["id"] as? String)
    }

    /// A chunk body: `fixes` consecutive fixes of ``ride`` from `first`, and 50 Hz accelerometer samples over them.
    static func chunk(_ sequence: Int, first: Int, fixes: Int, acceleration: Bool = true) -> String {
        let slice = ride.fixes[first..<(first + fixes)]
        let fixText = slice.map { f in
            #"{"time":\#(f.time),"lat":\#(f.latitude),"lng":\#(f.longitude),"altitude":\#(f.altitude!),"accuracy":5,"speed":\#(f.speed!),"course":90}"#
        }.joined(separator: ",")
        let samples = acceleration ? slice.flatMap { f in (0..<50).map { i in
            #"{"time":\#(f.time + Double(i) / 50),"x":0.1,"y":0.2,"z":9.81}"#
        } }.joined(separator: ",") : ""
        return #"{"sequence":\#(sequence),"fixes":[\#(fixText)],"acceleration":[\#(samples)]}"#
    }

    /// A synthetic ride of 120 fixes at 1 Hz, 5 m/s due east along latitude 48.4105 in Krems, altitude rising 0.1 m/s;
    /// its ground truth (≈ 595 m over 119 s) is known by construction.
    static let ride: TripSamples = {
        let start = 1_790_000_000.0
        let metresPerDegree = 111_320 * cos(48.4105 * .pi / 180)
        let fixes = (0..<120).map { i in
            GPSFix(time: start + Double(i), latitude: 48.4105, longitude: 15.6000 + Double(i) * 5 / metresPerDegree,
                   altitude: 200 + Double(i) * 0.1, accuracy: 5, speed: 5, course: 90)
        }
        return TripSamples(fixes: fixes, acceleration: [])
    }()

    static func fields(_ json: [String: Any]) -> [String] {
        (json["fieldErrors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
    }

    /// Every event of the log, in order.
    static func log(_ h: TripHarness) async throws -> [EventEnvelope] {
        try await h.store.readAll(after: 0, limit: 10_000)
    }
}
